print("net 35")
