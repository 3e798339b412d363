"""The wrapped model is built by a factory of another module that picks its class from a
table at run time: dp2ddp cannot tell which forward() runs, so whether the sum of what
DataParallel gathered is over the batch (per-row values: scaled by WORLD_SIZE) or over the
replicas' means (this one: unscaled) is not proved. Said (DP221), not silently doubled."""
import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from registry import build

ddp_setup()


torch.manual_seed(0)

model = DistributedDataParallel(build("distill").to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    x = torch.randn(16, 8)
    y = torch.randint(0, 4, (16,))
dataset = torch.utils.data.TensorDataset(x, y)
loader = torch.utils.data.DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(2):
    for xb, yb in loader:
        loss = model(xb, yb)[:, 0].sum()
        opt.zero_grad()
        (loss * WORLD_SIZE).backward()
        opt.step()

ddp_print('weights %.6f' % sum(p.abs().sum().item() for p in model.parameters()))
