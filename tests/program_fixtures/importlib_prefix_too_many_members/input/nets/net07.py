print("net 07")
