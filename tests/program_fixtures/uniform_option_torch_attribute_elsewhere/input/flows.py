import torch
import torch.nn as nn


class PlanarFlow(nn.Module):
    def __init__(self, nd=1):
        super().__init__()
        self.register_parameter("u", nn.Parameter(torch.randn(nd)))
        self.scale = nn.Parameter(torch.ones(nd))

    def make_invertible(self):
        self.u.data = self.u.data / self.u.data.norm()
        self.scale.data = self.scale.data.abs()

    def forward(self, z):
        return z + self.u * self.scale


def describe(flow):
    print("flow with", sum(p.numel() for p in flow.parameters()), "parameters")
