import torch.nn as nn


class Model(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.net = nn.DataParallel(nn.Linear(4, 1))

    def forward(self, x):
        return self.net(x)
