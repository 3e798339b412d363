"""The entry seeds Python's `random` and hands another module's dataset (no Dataset base)
to the DataLoader: every rank draws the same offsets for its k-th sample."""
import random

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from crops import RandomCrops

ddp_setup()


random.seed(0)
torch.manual_seed(0)
with ddp_same_random():
    dataset = RandomCrops(torch.randn(16, 10))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
net = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for x, offset in loader:
    optimizer.zero_grad()
    net(x).pow(2).mean().backward()
    optimizer.step()
