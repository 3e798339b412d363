"""A DataLoader built (and sharded: a warm-up pass trains on it) by a data module, its
batches numbered here with enumerate() and handed to a step function of a third module
that takes next() of them and returns the batch's loss. The step's batch is this rank's
share already: not split again. The epoch's mean of the returned losses is rank 0's half
(DP030)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data.feed import make_loader
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
    batches = enumerate(loader)
    total = 0.0
    for _ in range(len(loader)):
        total += train_step(model, optimizer, batches)
    # dp2ddp: DP030 running figure printed from this rank's shard
    ddp_print(f"epoch {epoch + 1} mean loss {total / len(loader):.6f}")
ddp_print(f"sum|w| {sum(p.abs().sum().item() for p in model.parameters()):.6f}")
