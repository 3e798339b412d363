"""Stop 46 leftover (f): `getattr(models, args.arch)` over a package whose `__init__` imports
its modules by a name built from its own `__name__` (`import_module(f"{__name__}.{info.name}")`
over `pkgutil.iter_modules(__path__)`) and re-exports their classes: the members were not
read (DP102 called the package "a library"), partial.py not migrated: its print ran on every
rank. Now every member is read: DP041 names Partial.forward(), the print is rank 0's."""
import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import models
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="Partial")
args = parser.parse_args()
torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
# dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
model = DistributedDataParallel(
    getattr(models, args.arch)().to(DEVICE),
    device_ids=DEVICE_IDS,
    find_unused_parameters=True,
)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for xb, yb in loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
ddp_print("weights %.4f" % model.module.fc.weight.sum().item())
