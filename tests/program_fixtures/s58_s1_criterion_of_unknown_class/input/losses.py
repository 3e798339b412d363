"""Criteria picked by name on the command line."""

import torch
import torch.nn as nn


class Alignment(nn.Module):
    def __init__(self, temperature=0.5):
        super().__init__()
        self.temperature = temperature

    def forward(self, z):
        logits = torch.mm(z, z.t()) / self.temperature
        return nn.functional.cross_entropy(logits, torch.arange(z.size(0)))


class Magnitude(nn.Module):
    def __init__(self, weight=1.0):
        super().__init__()
        self.weight = weight

    def forward(self, z):
        return self.weight * (z * z).sum(1).mean()


TABLE = {"alignment": Alignment, "magnitude": Magnitude}
