import os


def create_folder(fd):
    if not os.path.exists(fd):
        os.makedirs(fd)


def append_result(path, line):
    print(line)
    with open(path, "a") as f:
        f.write(line + "\n")
