print("net 38")
