import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_discard_path,
    ddp_is_main,
    ddp_print,
    ddp_setup,
)
from scoring import Logger, Scorer

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
y = torch.randint(0, 2, (8,))
scorer = Scorer()
log = Logger(sys.stdout, prefix="log ")
for step in range(3):
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    log.write("step %d loss %.4f" % (step, loss.item()))
scorer.update(int((out.argmax(1) == y).sum()), len(y))
scorer.report(sys.stdout)
other = Scorer()
other.update(3, 4)
other.report(out=sys.stderr)
with open("summary.txt" if ddp_is_main() else ddp_discard_path(), "w") as f:
    scorer.summary(f)
ddp_print("weights %.4f" % model.module.weight.sum().item())
