print("net 13")
