"""A network module imported by a computed name with no static end, `"nets." + opt.arch`:
the module wraps nothing and builds no loader, but it prints and appends to a history file.
Before stop 46 only the package's modules that wrap or build a loader were read: nets/logged.py
was not migrated, and under torchrun both ranks printed and appended (history.txt twice as
long), without a word. Now every module the name can be is read into the program."""
import argparse
import importlib

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_same_random, ddp_setup

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="logged")
parser.add_argument("--batch_size", type=int, default=4)
opt = parser.parse_args()
torch.manual_seed(0)
net = importlib.import_module("nets." + opt.arch)
# dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
model = DistributedDataParallel(
    net.build(opt).to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(opt.batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net.record(epoch)
