"""Training over a stream class another module defines."""

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from records import RecordStream

ddp_setup()


net = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for epoch in range(2):
    for rows, sums in DataLoader(RecordStream(16), batch_size=4):
        optimizer.zero_grad()
        nn.functional.mse_loss(net(rows), sums).backward()
        optimizer.step()
