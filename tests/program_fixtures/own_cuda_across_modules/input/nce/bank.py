"""A memory bank of another module builds the sampler through a relative import and calls
its own `cuda()`: the call stays `.cuda()` (a `.to(DEVICE)` would raise AttributeError)."""
import torch
from torch import nn

from .alias import AliasTable


class Bank(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.sampler = AliasTable(torch.ones(n))
        self.sampler.cuda()
        self.register_buffer("memory", torch.zeros(n, dim))

    def forward(self, feats):
        idx = self.sampler.draw(feats.size(0))
        return (feats * self.memory[idx]).sum(1).mean() + feats.pow(2).mean()
