print("net 04")
