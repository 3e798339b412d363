import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, DdpDistributedSampler, ddp_per_rank_batch


class IO:
    def __init__(self, argv):
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
        # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
        self.loader = DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
        )
        self.model = DistributedDataParallel(
            nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
