"""Directory creation before a rank-0 save (issue 10 item 2; 4 of 12 surveyed repos).

The sleep between the check and the mkdir makes the race certain: under torchrun every rank
finds no directory, then every rank creates it, and all but the first raise FileExistsError
unless the migration made the creation idempotent.
"""

import os
import shutil
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if not os.path.isdir("checkpoint"):
        time.sleep(0.5)
        os.mkdir("checkpoint")
    torch.save(model.state_dict(), "checkpoint/last.pth")
    if os.path.exists("checkpoint/prev.pth"):
        time.sleep(0.2)
        os.remove("checkpoint/prev.pth")
    shutil.copyfile("checkpoint/last.pth", "checkpoint/prev.pth")
state = torch.load("checkpoint/last.pth")
print("saved", sorted(state))
