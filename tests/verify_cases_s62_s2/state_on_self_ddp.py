"""state_on_self_dp.py migrated by hand as DataParallel ran it on W GPUs: each rank its part
of each batch, and the state forward() sets on `self` dropped before every call (a fresh
replica's), so every step starts from zeros."""

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
RANK, WORLD = dist.get_rank(), dist.get_world_size()


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)
        self.h = None

    def forward(self, x):
        if self.h is None:
            self.h = torch.zeros(x.size(0), 2)
        out = torch.tanh(self.lin(x) + self.h)
        self.h = out
        return out


torch.manual_seed(0)
X = torch.randn(32, 4)
Y = torch.randn(32, 2)
model = DistributedDataParallel(Stateful())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
part = 8 // WORLD
for step in range(4):
    x, y = X[step * 8 : (step + 1) * 8], Y[step * 8 : (step + 1) * 8]
    x, y = x[RANK * part : (RANK + 1) * part], y[RANK * part : (RANK + 1) * part]
    model.module.h = None  # a fresh replica's state, as on DataParallel's GPUs
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f}")
