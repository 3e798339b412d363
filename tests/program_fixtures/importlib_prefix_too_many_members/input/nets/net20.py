print("net 20")
