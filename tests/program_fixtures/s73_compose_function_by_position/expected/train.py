"""A function of the program that draws from torch's generator per call, handed by
position to a Dataset class of another module (`Scaled(8, jitter)`), which calls it on each
sample. torch is seeded alike on every rank: rank r's k-th sample gets every rank's k-th
draw (DP067 at the construction; before: a function was followed only by a transform
keyword). Issue 28, stop 73."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from samples import Scaled

ddp_setup()


def jitter(x):
    return x * (0.5 + torch.rand(1))


torch.manual_seed(0)
model = DistributedDataParallel(
    nn.Linear(1, 1, bias=False).to(DEVICE), device_ids=DEVICE_IDS
)
with torch.no_grad():
    model.module.weight.fill_(0.0)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
dataset = Scaled(8, jitter)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for x in loader:
        loss = ((model(torch.ones_like(x)) - x) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
ddp_print("final w %.6f" % model.module.weight.item())
