"""Seeded alike everywhere; the augmentation is a composition built here."""

import random

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from augment import Chain, Halve, Jitter
from samples import Rows

ddp_setup()


random.seed(0)
torch.manual_seed(0)
steps = [Halve(), Jitter(0.1)]
dataset = Rows(16, Chain(steps))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(dataset, shuffle=True),
)
net = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for rows, sums in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(net(rows), sums).backward()
        optimizer.step()
