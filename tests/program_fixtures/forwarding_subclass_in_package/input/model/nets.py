import torch.nn as nn


class Separator(nn.Module):
    """One sub-network per instrument, kept in a ModuleDict filled in a loop: forward() runs
    the one it is asked for (its other entries get no gradient in that pass)."""

    def __init__(self, instruments):
        super().__init__()
        self.instruments = instruments
        self.nets = nn.ModuleDict()
        for name in instruments:
            self.nets[name] = nn.Linear(4, 2)

    def forward(self, x, inst):
        return {inst: self.nets[inst](x)}
