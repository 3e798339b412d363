"""BasicConv's BatchNorm is built only under `bn`, default False, and only this module
builds BasicConv (leaving it off): no BatchNorm held, no DP008 for it. Block's is built
under `norm`, which train.py turns on: DP008 names it."""
import torch.nn as nn


class BasicConv(nn.Module):
    def __init__(self, channels, bn=False):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels) if bn else None

    def forward(self, x):
        x = self.conv(x)
        return self.bn(x) if self.bn is not None else x


class Block(nn.Module):
    def __init__(self, norm=False):
        super().__init__()
        self.body = BasicConv(1)
        self.norm = nn.BatchNorm2d(1) if norm else nn.Identity()

    def forward(self, x):
        return self.norm(self.body(x))
