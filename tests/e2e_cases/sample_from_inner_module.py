"""A sample saved from the module the wrap was built from, by its own name
(rosinality/glow-pytorch@97081ff: `model = nn.DataParallel(model_single)`, the sample grid
from `model_single.reverse(z)` inside `train()`). Migrated, the save goes to rank 0, as the
same line through `model.module` does (before: every rank wrote it). The file's name holds
the writing process's id: one file per sample step means one writer."""

import os

import numpy as np
import torch
from torch import nn


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(x)

    def reverse(self, z):
        return z - self.layer.bias


def train(model, opt, z_sample):
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    for i in range(3):
        loss = model(data).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 2 == 0:
            with torch.no_grad():
                np.save(f"sample_{i}_{os.getpid()}.npy", model_single.reverse(z_sample).numpy())


torch.manual_seed(0)
model_single = Flow()
model = nn.DataParallel(model_single)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train(model, opt, torch.ones(2, 4))
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
