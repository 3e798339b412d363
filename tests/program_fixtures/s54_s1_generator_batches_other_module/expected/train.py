import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import lib
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)

    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
itr = lib.get_iter(4)
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(4):
    x, label = itr.__next__()
    loss = nn.functional.cross_entropy(model(x), label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
for step in range(2):
    x, label = next(itr)
    loss = ((model(x) - label.float().unsqueeze(1)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
ddp_print("weights %.4f" % sum(p.abs().sum().item() for p in model.parameters()))
