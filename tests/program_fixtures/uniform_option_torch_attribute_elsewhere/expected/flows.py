import torch
import torch.nn as nn

from _dp2ddp import ddp_print


class Shift(nn.Module):
    """Stores a `data` attribute, on its own registered parameter only."""

    def __init__(self, nd=1):
        super().__init__()
        self.register_parameter("u", nn.Parameter(torch.zeros(nd)))

    def normalize(self):
        self.u.data = self.u.data.clamp(-1, 1)

    def forward(self, z):
        return z + self.u


def describe(flow):
    ddp_print("flow with", sum(p.numel() for p in flow.parameters()), "parameters")
