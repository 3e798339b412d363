"""seq_first_dropout_dp.py migrated by hand: each rank keeps its columns of every batch."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
RANK, WORLD_SIZE = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
T, B = 5, 4
series = torch.randn(T, 3 * B, 3)
target = torch.randn(T, 3 * B, 1)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Dropout(0.2), nn.Linear(8, 1))
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
share = B // WORLD_SIZE
for step in range(3):
    x = series[:, step * B : (step + 1) * B][:, RANK * share : (RANK + 1) * share]
    y = target[:, step * B : (step + 1) * B][:, RANK * share : (RANK + 1) * share]
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
