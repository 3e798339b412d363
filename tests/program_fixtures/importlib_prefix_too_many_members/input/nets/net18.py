print("net 18")
