print("net 00")
