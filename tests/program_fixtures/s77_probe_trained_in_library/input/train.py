"""Pretraining, then a linear read-out evaluation of another module."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from evaluation import read_out_accuracy

torch.manual_seed(0)
encoder = nn.DataParallel(nn.Linear(6, 4))
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
loader = DataLoader(TensorDataset(torch.randn(32, 6)), batch_size=8, shuffle=True)
for (x,) in loader:
    optimizer.zero_grad()
    encoder(x).pow(2).mean().backward()
    optimizer.step()
print("read-out accuracy %.3f" % read_out_accuracy(encoder.module))
