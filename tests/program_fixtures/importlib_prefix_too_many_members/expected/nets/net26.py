print("net 26")
