print("net 33")
