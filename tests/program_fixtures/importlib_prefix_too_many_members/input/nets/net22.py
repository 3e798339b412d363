print("net 22")
