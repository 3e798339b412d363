"""tiny_lr_dp.py migrated wrongly: each rank divides its share's sum by the global batch
size (8) and DDP averages the ranks' gradients, so the gradient is half the original's."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
WORLD_SIZE = dist.get_world_size()
torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(
    data, batch_size=8 // WORLD_SIZE, sampler=DistributedSampler(data, shuffle=False)
)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = DistributedDataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=1e-8)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y, reduction="sum") / 8
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
