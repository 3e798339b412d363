print("net 16")
