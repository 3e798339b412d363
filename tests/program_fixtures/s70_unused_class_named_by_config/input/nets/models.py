"""Model classes picked by name from a config: the picked one reads two of three projections
built by a helper (`clones`), the first never runs and gets no gradient."""

import copy

import torch
import torch.nn as nn


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Attention(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.proj = clones(nn.Conv1d(channels, channels, 3, padding=1), 3)
        self.out = nn.Linear(6, 6)

    def forward(self, query, key, value):
        key = self.proj[1](key)
        value = self.proj[2](value)
        weights = torch.softmax(query @ key.transpose(1, 2), dim=-1)
        return self.out(weights @ value)


class SleepNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = Attention()
        self.head = nn.Linear(24, 2)

    def forward(self, x):
        return self.head(self.attention(x, x, x).flatten(1))
