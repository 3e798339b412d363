import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import scoring
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_discard_path,
    ddp_is_main,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
with ddp_same_random():
    x = torch.randn(8, 4)
y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
for step in range(20):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    pred = model(x).argmax(1).tolist()
scoring.report(scoring.counts(pred, y.tolist()), sys.stdout)
scoring.report(scoring.counts(pred[:4], y.tolist()[:4]), out=sys.stderr)
with open("summary.txt" if ddp_is_main() else ddp_discard_path(), "w") as f:
    scoring.summary(scoring.counts(pred, y.tolist()), f)
ddp_print("weights %.4f" % model.module.weight[0].sum().item())
