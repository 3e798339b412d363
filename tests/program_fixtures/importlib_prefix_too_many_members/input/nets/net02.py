print("net 02")
