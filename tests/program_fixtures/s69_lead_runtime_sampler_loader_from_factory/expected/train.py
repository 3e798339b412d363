import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import feeds
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_global_count, ddp_print, ddp_setup

ddp_setup()


def fit(model, batches, optimizer):
    seen = 0
    for inputs, targets in batches:
        loss = ((model(inputs) - targets) ** 2).mean() / ddp_global_count(len(inputs))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen += len(inputs)
    # dp2ddp: DP030 running figure printed from this rank's shard
    return seen


torch.manual_seed(0)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 2)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
opt = torch.optim.SGD(model.parameters(), lr=1.0)
_, batches = feeds.make_feed(4, 12)
for epoch in range(2):
    batches.sampler.set_epoch(epoch)
    ddp_print("epoch", epoch, "samples", fit(model, batches, opt))
ddp_print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
