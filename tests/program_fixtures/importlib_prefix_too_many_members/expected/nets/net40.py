print("net 40")
