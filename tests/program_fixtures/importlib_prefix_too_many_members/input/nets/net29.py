print("net 29")
