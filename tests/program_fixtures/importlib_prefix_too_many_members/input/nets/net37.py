print("net 37")
