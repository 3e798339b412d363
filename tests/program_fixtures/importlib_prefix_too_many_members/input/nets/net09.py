print("net 09")
