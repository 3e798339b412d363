print("net 21")
