from torch import nn

from _dp2ddp import ddp_print


def make_model():
    ddp_print("a plain model")
    return nn.Linear(4, 2)
