"""A generator with BatchNorm layers (happen2me/genda's models/generator.py)."""

import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.blocks = nn.Sequential(nn.BatchNorm1d(16), nn.LeakyReLU(0.2), nn.Linear(16, 4))

    def forward(self, z):
        return self.blocks(self.l1(z))
