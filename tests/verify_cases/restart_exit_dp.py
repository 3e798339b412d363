"""Ends by a status it chooses, `exit(3)` after training (LMescheder/GAN_stability's restart
protocol after `restart_every`): no traceback, not a crash (verify V1)."""

import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    print(f"epoch {epoch}")
print("restart")
sys.exit(3)
