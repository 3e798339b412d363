print("net 03")
