print("net 39")
