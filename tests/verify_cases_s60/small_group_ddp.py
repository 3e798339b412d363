"""small_group_dp.py migrated wrongly: each rank divides its share's penalty sum by the
global batch size (8) and DDP averages the ranks' gradients, so the gain's gradient from the
penalty is half the original's; the network's mean loss is kept."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")


class Gained(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.gain = nn.Parameter(torch.full((1,), 1e-3))

    def forward(self, x):
        return self.body(x), self.gain * x.abs().sum(1, keepdim=True)


torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(
    data, batch_size=8 // dist.get_world_size(), sampler=DistributedSampler(data, shuffle=False)
)
net = Gained()
model = DistributedDataParallel(net)
opt = torch.optim.SGD(
    [{"params": net.body.parameters()}, {"params": [net.gain], "lr": 2e-9}], lr=0.1
)
for x, y in loader:
    out, penalty = model(x)
    loss = nn.functional.mse_loss(out, y) + penalty.sum() / 8
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
