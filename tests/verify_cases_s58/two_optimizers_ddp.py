"""two_optimizers_dp.py migrated by hand as dp2ddp did HSR before DP059: each rank's
discriminator takes the means over its own share."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
WORLD_SIZE = dist.get_world_size()
torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 16))
loader = DataLoader(
    data, batch_size=8 // WORLD_SIZE, sampler=DistributedSampler(data, shuffle=False)
)
gen = DistributedDataParallel(nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 16)))
disc = DistributedDataParallel(nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)))
opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
for (x,) in loader:
    fake = gen(x)
    loss_g = ((fake - x) ** 2).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    real_out, fake_out = disc(x), disc(fake.detach())
    ones, zeros = torch.ones_like(real_out), torch.zeros_like(fake_out)
    loss_d = F.binary_cross_entropy_with_logits(real_out - fake_out.mean(), ones)
    loss_d = loss_d + F.binary_cross_entropy_with_logits(fake_out - real_out.mean(), zeros)
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
dist.destroy_process_group()
