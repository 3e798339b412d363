"""WGAN-GP: a critic called on real, fake and interpolated samples, its gradient penalty
computed by a helper through the wrapped critic."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 1)  # a head this stage does not use

    def forward(self, x, stage=0):
        h = self.body(x)
        return self.aux(h) if stage else self.head(h)


def penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = D(mixed)
    grad = torch.autograd.grad(out.sum(), mixed, create_graph=True)[0]
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


torch.manual_seed(0)
real_data = torch.randn(32, 4)
G = nn.DataParallel(nn.Linear(2, 4))
D = nn.DataParallel(Critic())
opt_d = torch.optim.SGD(D.parameters(), lr=0.05)
opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
loader = DataLoader(TensorDataset(real_data), batch_size=8, shuffle=True)
for (real,) in loader:
    fake = G(torch.randn(real.size(0), 2)).detach()
    d_loss = D(fake).mean() - D(real).mean()
    opt_d.zero_grad()
    d_loss.backward()
    gp = 10 * penalty(D, real, fake)
    gp.backward()
    opt_d.step()
    g_loss = -D(G(torch.randn(real.size(0), 2))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
print("done")
