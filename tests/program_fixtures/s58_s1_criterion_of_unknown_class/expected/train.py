import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import losses
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--loss", default="Alignment")
parser.add_argument("--penalty", default="magnitude")
args = parser.parse_args()

torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(6, 4).to(DEVICE), device_ids=DEVICE_IDS)
criterion = getattr(losses, args.loss)()
penalty = losses.TABLE[args.penalty]()
plain = getattr(nn, "MSELoss")()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    data = torch.randn(8, 6)
dataset = torch.utils.data.TensorDataset(data)
loader = torch.utils.data.DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for (x,) in loader:
        z = model(x)
        loss = criterion(z) + penalty(z) + plain(z, torch.zeros_like(z))
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("loss %.4f" % loss.item())
