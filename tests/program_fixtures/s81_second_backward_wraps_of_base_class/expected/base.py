"""A trainer base class that wraps the networks it is built with and makes their
optimizers; subclasses in other modules run the steps."""
import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class PairTrainer:
    def __init__(self, net_a, net_b, lr):
        self.first = DistributedDataParallel(net_a.to(DEVICE), device_ids=DEVICE_IDS)
        self.second = DistributedDataParallel(net_b.to(DEVICE), device_ids=DEVICE_IDS)
        self.opt_first = torch.optim.SGD(self.first.parameters(), lr=lr)
        self.opt_second = torch.optim.SGD(self.second.parameters(), lr=lr)
