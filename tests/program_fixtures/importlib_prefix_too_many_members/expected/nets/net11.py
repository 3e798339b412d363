print("net 11")
