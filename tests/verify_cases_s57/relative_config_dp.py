"""Stop 56 (kchengiva/DecoupleGCN-DropGraph@a9c2052, verify started from another folder): a
config read by a path relative to the working folder, missing there. Its FileNotFoundError
was blamed on verify's seeding."""

import torch
from torch import nn

with open("configs/width.txt") as f:
    width = int(f.read())
model = nn.DataParallel(nn.Linear(width, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    loss = model(torch.randn(4, width)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
