import os

from _dp2ddp import ddp_is_main


def create_folder(fd):
    if not os.path.exists(fd):
        os.makedirs(fd, exist_ok=True)


def append_result(path, line):
    if ddp_is_main():
        print(line)
        with open(path, "a") as f:
            f.write(line + "\n")
