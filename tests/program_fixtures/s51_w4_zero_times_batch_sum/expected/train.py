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
    ddp_same_random,
    ddp_setup,
)
from loss import Loss

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
criterion = Loss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        loss = criterion(y, out) + out.sum().mul(0.0)
        loss.backward()
        opt.step()
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
