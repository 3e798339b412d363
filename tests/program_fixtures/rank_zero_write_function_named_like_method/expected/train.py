"""A module function `load_data` (the split written when missing, then read) and a Dataset
method of the same name called in a loop (stop 46, v1-C: AbnerHqC/GaitSet's
data_loader.load_data and DataSet.load_data). The method's call is no call of the function:
train.py calls the function on every rank, so the read waits at a barrier for rank 0's write."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from pkg.dataset import Frames
from pkg.split import load_data

ddp_setup()


torch.manual_seed(0)
ids = load_data("work_split")
ddp_barrier()
data = Frames(ids)
data.load_all()
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=False),
):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
ddp_print("weights %.4f" % model.module.weight.sum().item())
