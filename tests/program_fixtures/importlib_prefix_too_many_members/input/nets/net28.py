print("net 28")
