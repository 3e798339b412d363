print("net 12")
