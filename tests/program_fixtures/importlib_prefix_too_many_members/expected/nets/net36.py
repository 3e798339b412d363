print("net 36")
