"""A progressive generator: grow_network() appends a block of this module's own class."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x).relu()


class Generator(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.width = width
        self.layers = nn.ModuleList([Block(width)])

    def grow_network(self):
        self.layers.append(Block(self.width))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
