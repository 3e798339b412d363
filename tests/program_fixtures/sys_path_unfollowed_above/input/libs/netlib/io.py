def log_line(path, text):
    with open(path, "a") as f:
        f.write(text + "\n")
