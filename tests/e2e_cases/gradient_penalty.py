"""WGAN-GP with the penalty in the critic's one backward: migrated, the penalty's forward
runs through D.module and ddp_average_gradients(D) follows the backward DDP already averaged
(the identity): runs under DDP, and the critic stays the same on every rank."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=16, shuffle=True)
G = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4)))
D = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
d_optimizer = torch.optim.SGD(D.parameters(), lr=0.05)
g_optimizer = torch.optim.SGD(G.parameters(), lr=0.05)
generator = torch.Generator().manual_seed(1)
for epoch in range(2):
    for (real,) in loader:
        noise = torch.randn(real.size(0), 4, generator=generator)
        fake = G(noise).detach()
        alpha = torch.rand(real.size(0), 1, generator=generator)
        interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        grad = torch.autograd.grad(D(interpolated).sum(), interpolated, create_graph=True)[0]
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        d_loss = D(fake).mean() - D(real).mean() + 10 * penalty
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
        g_loss = -D(G(noise)).mean()
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
    print(f"epoch {epoch} done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in D.parameters()]
print("final", E2E_DIGEST)
