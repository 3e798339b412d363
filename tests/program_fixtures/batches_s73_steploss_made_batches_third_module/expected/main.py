"""A DataLoader built (and sharded: a warm-up pass trains on it) by a data module, and what
a function of that module makes of it (`numbered_batches(loader)`) handed to a step
function of a third module that takes next() of it. Whether that is the loader's batches
(this rank's share) is not read: the step's batch is not split again, DP037 says so."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data.feed import make_loader, numbered_batches
from training.steps import train_step

ddp_setup()


torch.manual_seed(0)

inputs = torch.randn(64, 6)
targets = inputs @ torch.randn(6, 2) + 0.1 * torch.randn(64, 2)
loader = make_loader(inputs, targets, 16)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:  # a warm-up pass over the loader
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
for epoch in range(3):
    batches = numbered_batches(loader)
    total = 0.0
    for _ in range(len(loader)):
        total += train_step(model, optimizer, batches)
    # dp2ddp: DP030 running figure printed from this rank's shard
    ddp_print(f"epoch {epoch + 1} mean loss {total / len(loader):.6f}")
ddp_print(f"sum|w| {sum(p.abs().sum().item() for p in model.parameters()):.6f}")
