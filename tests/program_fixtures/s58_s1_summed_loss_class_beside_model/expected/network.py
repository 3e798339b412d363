import torch
import torch.nn as nn


class SquaredError(nn.Module):
    """Summed over the rows and over the batch: holds no parameter."""

    def forward(self, target, output):
        diff = output - target
        return torch.sum(diff * diff)


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 5)
        self.error = SquaredError()

    def forward(self, x):
        return self.body(x)

    def loss(self, target, output):
        return self.error(target, output)
