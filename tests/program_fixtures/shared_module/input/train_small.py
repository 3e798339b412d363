from shared import build, fit

if __name__ == "__main__":
    fit(build(), epochs=1)
