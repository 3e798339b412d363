print("net 19")
