print("net 10")
