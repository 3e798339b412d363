"""The noise for the global batch drawn by a helper of another module that the entry imports
with `from utils import *`, in a range loop over `next(dataiter)` (jalola/improved-wgan-pytorch
@5bb0b72's `gen_rand_noise(batch_size)`, stop 43 v2-F). The star import's names are looked up
in the module it names: DP006 names the draw (before: the call was not resolved, no warning,
and both ranks crashed where the global batch's fakes met a rank's reals)."""
import torch
from torch import nn
from utils import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


G = DistributedDataParallel(nn.Linear(8, 8).to(DEVICE), device_ids=DEVICE_IDS)
D = DistributedDataParallel(nn.Linear(8, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(D.parameters(), lr=0.1)
batch_size = 4
with ddp_same_random():
    dataset = torch.utils.data.TensorDataset(torch.randn(16, 8))
loader = torch.utils.data.DataLoader(
    dataset, batch_size=ddp_per_rank_batch(batch_size), drop_last=True, 
sampler=DdpDistributedSampler(dataset, shuffle=False, drop_last=True))
dataiter = iter(loader)
for iteration in range(4):
    noise = gen_rand_noise(batch_size)
    fake = G(noise).detach()
    batch = next(dataiter, None)
    if batch is None:
        dataiter = iter(loader)
        batch = next(dataiter)
    real = batch[0]
    loss = D(fake).mean() - D(real).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
