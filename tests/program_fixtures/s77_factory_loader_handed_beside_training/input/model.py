"""A regressor that also sets its output offset from one whole pass over a loader."""

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 1)
        self.register_buffer("offset", torch.zeros(1))

    def forward(self, x):
        return self.body(x) + self.offset

    def calibrate(self, loader):
        for features, targets in loader:
            self.offset = (targets - self.body(features)).mean(0)
