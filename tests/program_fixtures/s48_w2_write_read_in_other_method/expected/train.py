"""A statistics file rank 0 dumps, read back by `load_state_dict()` at resume, before the
loop (stop 48 v3-F, qiuqiangkong/panns_transfer_to_gtzan@af501a8's StatisticsContainer):
DP054 names the reading method, which is not proved to run before the dump."""
import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from utils.stats import Stats

ddp_setup()


torch.manual_seed(0)
x = torch.randn(32, 6)
dataset = TensorDataset(x, x.sum(1, keepdim=True))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
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
ddp_print("weights %.4f" % model.module.weight.sum().item())
