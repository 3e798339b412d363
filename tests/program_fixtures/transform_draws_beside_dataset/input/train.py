import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import RandomGenerator, Slices

np.random.seed(0)
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Slices(16, transform=RandomGenerator()), batch_size=8, shuffle=True)
for epoch in range(2):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
