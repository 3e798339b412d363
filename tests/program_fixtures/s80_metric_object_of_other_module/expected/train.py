"""A running meter fed by a value read back from a metric object of another module that a
statement of the loop handed the batch's outputs (round 33's Sparse-Depth-Completion, its
`Metrics` in another file: the rerun found no DP030 there). The metric's method stores what
it is given (ProgramHints.keepers): the meter holds this rank's batches, said where printed."""
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
    ddp_setup,
)
from scores import Errors, Meter

ddp_setup()


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    meter = Meter()
    errors = Errors()
    for x, y in loader:
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        errors.measure(out.detach(), y)
        meter.add(errors.value("mae"), errors.count)
    # dp2ddp: DP030 running figure printed from this rank's shard
    ddp_print("epoch", epoch, "mae", round(meter.total / meter.n, 4))
