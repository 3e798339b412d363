print("net 05")
