import torch
import torch.nn as nn

from _dp2ddp import (
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from models import NceLoss, Pipeline

ddp_setup()


torch.manual_seed(0)
model = Pipeline()
criterion = NceLoss()
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
        z1, z2 = model(x, x + 0.1)
        # dp2ddp: DP115 code outside a partial wrap compares the whole batch's rows
        distances = torch.cdist(z1, z2)
        loss = distances.diagonal().mean() - distances.mean() + criterion(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("loss %.4f" % loss.item())
ddp_print("weights %.4f" % sum(p.abs().sum().item() for p in model.parameters()))
