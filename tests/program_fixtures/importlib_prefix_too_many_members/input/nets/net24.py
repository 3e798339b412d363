print("net 24")
