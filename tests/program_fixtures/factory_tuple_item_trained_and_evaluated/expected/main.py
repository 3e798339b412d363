"""Trains on item 1 of loaders.pair(), which report.py only evaluates: the item stays
sharded (DP084 at the library's call), and no call passes ddp_shard to pair()."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import loaders
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from report import report

ddp_setup()


net = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
_, data = loaders.pair(8)
for epoch in range(2):
    data.sampler.set_epoch(epoch)
    for x, y, _ in data:
        loss = nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
report(net)
