print("net 06")
