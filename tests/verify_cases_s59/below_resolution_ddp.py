"""below_resolution_dp.py migrated."""

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
model = DistributedDataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-12)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
