# ku21fan/STR-Fewer-Labels@0d9ef6a modules/semi_supervised.py, in brief: a mean teacher built
# under an option, wrapped, its mode set by `self.net.train()` (nn.Module's method, not
# train.py's train()).
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Teacher(nn.Module):
    def __init__(self, opt, net):
        super().__init__()
        # dp2ddp: DP022, DP041
        self.net = DistributedDataParallel(
            net.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
        )
        self.net.train()
        opt.semi_batch = opt.batch_size // 2

    def forward(self, x):
        return self.net(x).detach()
