import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import engine
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


with ddp_same_random():
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
engine.train(model, loader, optimizer, 2)
