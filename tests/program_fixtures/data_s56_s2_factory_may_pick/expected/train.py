"""The epoch functions over what the factory returns for a split read from the command line
(r3-B): the factory may return its sharded loader, so both running figures are said
(DP030, "where fetch() returns a sharded loader")."""
import torch
import torch.nn as nn
from picks_data import fetch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


class RunningAverage:
    def __init__(self):
        self.steps = 0
        self.total = 0.0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / float(self.steps)


def train_epoch(model, opt, loader):
    loss_avg = RunningAverage()
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_avg.update(loss.item())
    # dp2ddp: DP030 running figure printed from this rank's shard
    return loss_avg()


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += nn.functional.mse_loss(model(x), y, reduction="sum").item()
    # dp2ddp: DP030 running figure printed from this rank's shard
    return total


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
import sys
split = sys.argv[1] if len(sys.argv) > 1 else "train"
loader = fetch(split, 4)
dev = fetch("dev", 4)
for epoch in range(2):
    train_loss = train_epoch(model, opt, loader)
    ddp_print("train loss %.4f" % train_loss)
    ddp_print("dev loss %.4f" % evaluate(model, dev))
ddp_print("weights %.4f" % model.module.weight.sum().item())
