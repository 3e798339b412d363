"""The loaders reach the training loop through a slice and an unpacking."""

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from sets import build

ddp_setup()


torch.manual_seed(0)
loaders = build()[:2]
model = DistributedDataParallel(nn.Linear(5, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    fit_batches, held_batches = loaders
    fit_batches.sampler.set_epoch(epoch)
    for rows, targets in fit_batches:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(rows), targets).backward()
        optimizer.step()
