from torch import nn

from _dp2ddp import ddp_print


def build(opt):
    ddp_print("building a wide net")
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))


def record(epoch):
    ddp_print("epoch", epoch)
