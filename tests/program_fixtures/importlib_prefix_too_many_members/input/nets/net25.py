print("net 25")
