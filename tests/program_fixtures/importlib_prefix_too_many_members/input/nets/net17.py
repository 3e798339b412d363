print("net 17")
