"""A program function reached through `from ckpt import *` pickles the wrapped model whole
(validation round 27, an image-captioning repo's `from utils import *`): as through a named
import, the call hands it the inner model where that is all the function does with it, and
says DP070 where it does more; the star import no longer hides the function."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from ckpt import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

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


model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    save_checkpoint(epoch, model.module, optimizer)
# dp2ddp: DP070 the wrapped model is pickled whole
ddp_print(describe(model))
