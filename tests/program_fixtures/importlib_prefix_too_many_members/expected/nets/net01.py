print("net 01")
