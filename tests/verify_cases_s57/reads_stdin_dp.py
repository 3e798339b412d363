"""Stop 55 r1-B (CheXpert's original): a program that reads standard input. verify gives it
none; its EOFError was blamed on verify's seeding."""

import torch
from torch import nn

if input("Overwrite the last run? (y/n) ") != "y":
    raise SystemExit(1)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    loss = model(torch.randn(4, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
