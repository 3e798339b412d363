import torch
import torch.nn as nn

from _dp2ddp import ddp_print


class Big(nn.Module):
    def __init__(self, width):
        super().__init__()
        ddp_print("| Big %d" % width)
        self.fc = nn.Linear(4, width)
        self.bn = nn.BatchNorm1d(width)

    def forward(self, x):
        return self.bn(self.fc(x))


def test():
    print(Big(8)(torch.randn(2, 4)).shape)
