print("net 32")
