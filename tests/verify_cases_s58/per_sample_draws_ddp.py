"""per_sample_draws_dp.py migrated as dp2ddp migrates it (DP006 at the draw): every rank
draws the same values for its k-th sample, where DataParallel's one process drew one per
sample of the whole batch."""

import random

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
WORLD_SIZE = dist.get_world_size()
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 8), torch.randn(16, 1))
loader = DataLoader(
    data, batch_size=4 // WORLD_SIZE, sampler=DistributedSampler(data, shuffle=False)
)
held_out = DataLoader(TensorDataset(torch.randn(4, 8)), batch_size=4)
model = DistributedDataParallel(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scales = [0.5, 1.0, 1.5, 2.0, 3.0]
random.seed(0)
for x, y in loader:
    with torch.no_grad():
        model(next(iter(held_out))[0])
    x = torch.stack([x[m] * random.sample(scales, 1)[0] for m in range(x.size(0))])
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
