print("net 23")
