import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from data import RandomGenerator, Slices

ddp_setup()


np.random.seed(0)
torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
dataset = Slices(16, transform=RandomGenerator())
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
