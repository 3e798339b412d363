import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from pkg._dp2ddp import DEVICE, DEVICE_IDS


def build():
    return DistributedDataParallel(nn.Linear(2, 2).to(DEVICE), device_ids=DEVICE_IDS)
