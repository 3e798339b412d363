from torch import nn

from _dp2ddp import ddp_is_main, ddp_print


def build(opt):
    ddp_print("building", opt.arch)
    return nn.Linear(4, 1)


def record(epoch):
    if ddp_is_main():
        with open("history.txt", "a") as f:
            f.write(f"epoch {epoch}\n")
