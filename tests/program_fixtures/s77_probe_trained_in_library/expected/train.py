"""Pretraining, then a linear read-out evaluation of another module."""

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from evaluation import read_out_accuracy

ddp_setup()


torch.manual_seed(0)
encoder = DistributedDataParallel(nn.Linear(6, 4).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(32, 6))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
for (x,) in loader:
    optimizer.zero_grad()
    encoder(x).pow(2).mean().backward()
    optimizer.step()
ddp_print("read-out accuracy %.3f" % read_out_accuracy(encoder.module))
