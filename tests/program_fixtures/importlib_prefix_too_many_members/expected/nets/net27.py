print("net 27")
