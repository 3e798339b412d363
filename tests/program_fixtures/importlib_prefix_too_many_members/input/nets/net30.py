print("net 30")
