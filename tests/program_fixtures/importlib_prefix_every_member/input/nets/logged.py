from torch import nn


def build(opt):
    print("building", opt.arch)
    return nn.Linear(4, 1)


def record(epoch):
    with open("history.txt", "a") as f:
        f.write(f"epoch {epoch}\n")
