def describe():
    print("a helper no entry uses")
