"""numpy reached through two star imports (round 21, YuanGongND/gopt@bed909d: `from models
import *`, whose `__init__` says `from .gopt import *`, which imports numpy as np): the
results `np.savetxt` and `np.save` write each epoch are rank 0's (before: written by every
rank, nothing said)."""

import os
import tempfile

from torch.utils.data import DataLoader, TensorDataset

from models import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_rank0_value,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


out_dir = ddp_rank0_value(tempfile.mkdtemp)
torch.manual_seed(0)
model = DistributedDataParallel(Scorer().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 6), torch.randn(16, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
results = np.zeros([2, 2])
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    results[epoch] = [epoch, loss.item()]
    if ddp_is_main():
        np.savetxt(os.path.join(out_dir, "results.csv"), results, delimiter=",")
        np.save(os.path.join(out_dir, "last.npy"), results)
