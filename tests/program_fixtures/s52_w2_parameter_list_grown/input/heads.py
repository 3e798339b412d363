"""A head holding trained tensors in an nn.ParameterList it grows itself."""

import torch
import torch.nn as nn


class Head:
    def __init__(self):
        self.shift = nn.ParameterList([nn.Parameter(torch.zeros(1))])

    def grow(self):
        self.shift.append(nn.Parameter(torch.full((1,), 0.5)))
