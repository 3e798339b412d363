"""Training over a stream class another module defines."""

import torch
from torch import nn
from torch.utils.data import DataLoader

from records import RecordStream

net = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for epoch in range(2):
    for rows, sums in DataLoader(RecordStream(16), batch_size=4):
        optimizer.zero_grad()
        nn.functional.mse_loss(net(rows), sums).backward()
        optimizer.step()
