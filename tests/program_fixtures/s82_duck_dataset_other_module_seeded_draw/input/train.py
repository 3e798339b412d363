"""The entry seeds Python's `random` and hands another module's dataset (no Dataset base)
to the DataLoader: every rank draws the same offsets for its k-th sample."""
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from crops import RandomCrops

random.seed(0)
torch.manual_seed(0)
loader = DataLoader(RandomCrops(torch.randn(16, 10)), batch_size=4)
net = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for x, offset in loader:
    optimizer.zero_grad()
    net(x).pow(2).mean().backward()
    optimizer.step()
