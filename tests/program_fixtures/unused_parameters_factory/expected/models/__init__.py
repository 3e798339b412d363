import torch.nn as nn

from .layers import Residual


class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Residual(6, 6), Residual(6, 1))

    def forward(self, x):
        return self.blocks(x)


NETWORKS = {"pose": PoseNet}


def get_network(name):
    return NETWORKS[name]()
