print("net 34")
