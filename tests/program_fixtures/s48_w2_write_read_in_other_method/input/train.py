"""A statistics file rank 0 dumps, read back by `load_state_dict()` at resume, before the
loop (stop 48 v3-F, qiuqiangkong/panns_transfer_to_gtzan@af501a8's StatisticsContainer):
DP054 names the reading method, which is not proved to run before the dump."""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from utils.stats import Stats

torch.manual_seed(0)
x = torch.randn(32, 6)
loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
model = nn.DataParallel(nn.Linear(6, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
stats = Stats("stats.pkl")
resume = int(sys.argv[1]) if len(sys.argv) > 1 else 0
if resume:
    stats.load_state_dict(resume)
step = resume
for xb, yb in loader:
    loss = nn.functional.mse_loss(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    stats.rows.append((step, loss.item()))
    if loss.item() > 1:
        stats.dump()
print("weights %.4f" % model.module.weight.sum().item())
