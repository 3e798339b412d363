print("net 31")
