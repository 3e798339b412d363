import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Model(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        # dp2ddp: DP022 wrapped model inside another wrapped model
        self.net = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )

    def forward(self, x):
        return self.net(x)
