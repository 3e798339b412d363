import torch
import torch.nn as nn

from _dp2ddp import ddp_is_main, ddp_print


def build():
    return nn.Linear(4, 1)


def report(step, loss):
    ddp_print("step %d loss %.4f" % (step, loss))


def save(model, path):
    if ddp_is_main():
        torch.save(model.state_dict(), path)
        print("saved", path)
