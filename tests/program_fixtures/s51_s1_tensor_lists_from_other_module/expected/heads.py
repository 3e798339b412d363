"""A module class holding a trained tensor, built in the entry."""
import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, h):
        return h * self.scale
