import os
import sys

import torch
import torch.nn as nn
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_same_random, ddp_setup
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

# a folder known at run time only: discovery cannot follow it
sys.path.insert(0, os.environ.get("NETLIB_HOME", os.path.join("..", "libs")))
from netlib.io import log_line  # noqa: E402


ddp_setup()


with ddp_same_random():
    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(data, shuffle=True),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log_line("log.txt", "epoch %d done" % epoch)
