"""WGAN-GP whose penalty runs only under `if self.adv_loss == 'wgan-gp':`, the value set in
__init__ from the config main.py parsed from the command line: the same on every rank, so
the penalty is rewritten (self.D.module, then ddp_average_gradients(self.D)). The hinge
branch has no penalty."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_average_gradients


class Trainer:
    def __init__(self, data_loader, config):
        self.data_loader = data_loader
        self.adv_loss = config.adv_loss
        self.total_step = config.total_step
        self.lambda_gp = 10
        self.G = DistributedDataParallel(
            nn.Sequential(nn.Linear(4, 16)).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.D = DistributedDataParallel(
            nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1)).to(DEVICE),
            device_ids=DEVICE_IDS,
        )
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), 1e-3)
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), 1e-3)

    def train(self):
        data_iter = iter(self.data_loader)
        for step in range(self.total_step):
            try:
                (real,) = next(data_iter)
            except StopIteration:
                data_iter = iter(self.data_loader)
                (real,) = next(data_iter)
            fake = self.G(torch.randn(real.size(0), 4))
            if self.adv_loss == "wgan-gp":
                d_loss = self.D(fake.detach()).mean() - self.D(real).mean()
            else:
                d_loss = torch.relu(1.0 + self.D(fake.detach())).mean()
            self.d_optimizer.zero_grad()
            d_loss.backward()
            self.d_optimizer.step()
            if self.adv_loss == "wgan-gp":
                alpha = torch.rand(real.size(0), 1)
                inter = (alpha * real + (1 - alpha) * fake.detach()).requires_grad_(True)
                out = self.D.module(inter)
                grad = torch.autograd.grad(
                    outputs=out, inputs=inter, grad_outputs=torch.ones_like(out), create_graph=True
                )[0]
                d_loss_gp = self.lambda_gp * ((grad.norm(2, dim=1) - 1) ** 2).mean()
                self.d_optimizer.zero_grad()
                d_loss_gp.backward()
                ddp_average_gradients(self.D)
                self.d_optimizer.step()
            g_loss = -self.D(fake).mean()
            self.g_optimizer.zero_grad()
            g_loss.backward()
            self.g_optimizer.step()
