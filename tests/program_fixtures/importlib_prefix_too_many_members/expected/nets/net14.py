print("net 14")
