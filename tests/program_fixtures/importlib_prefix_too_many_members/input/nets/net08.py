print("net 08")
