"""Stop 57 v1-G (riverlight/HSR@00ec23c): a generator's step, then a discriminator's whose
relativistic loss takes a mean over the whole batch of its output. Step 1 (the generator's)
agrees within float order; step 2 (the discriminator's) differs under DDP, where each rank's
mean is its share's. verify called it "float summation order ... as the optimizer amplifies
it", the floor measured on the generator only."""

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 16))
loader = DataLoader(data, batch_size=8)
gen = nn.DataParallel(nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 16)))
disc = nn.DataParallel(nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)))
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
