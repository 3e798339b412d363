"""Stop 56 v4-F (AnTao97/UnsupervisedPointCloudReconstruction@b589694): a program that asks
before it reuses its run folder. `verify ORIGINAL MIGRATED` started both in one folder at
once: the second found the first's folder, asked, and read end of file (RUN FAILED)."""

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
loader = DataLoader(data, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
torch.save(model.state_dict(), os.path.join(run, "model.pt"))
