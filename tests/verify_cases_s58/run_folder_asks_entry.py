"""Stop 57 s3, left (1): `verify ENTRY` started outside ENTRY's project ran the original and
the migration in that one folder at once. A program that asks before it reuses its run
folder then found the other run's folder and read end of file (RUN FAILED)."""

import os

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

run = os.path.join("snapshot", "run")
if os.path.exists(run):
    if input(f"Remove {run} ? (y/n)") != "y":
        raise SystemExit(1)
os.makedirs(run, exist_ok=True)
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=4)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
torch.save(model.state_dict(), os.path.join(run, "model.pt"))
