print("net 15")
