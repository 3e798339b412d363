"""A DataLoader's iterator handed to a step function of another module: the loader is
sharded (the step trains on what it takes), so each batch the step takes is this rank's
part already, and is not split again."""

import torch
import torch.nn as nn
import torch.nn.functional as F
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
from training.steps import train_step

ddp_setup()


torch.manual_seed(0)

inputs = torch.randn(64, 6)
targets = inputs @ torch.randn(6, 2) + 0.1 * torch.randn(64, 2)
dataset = TensorDataset(inputs, targets)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(16),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    batches = iter(loader)
    for step in range(len(loader)):
        train_step(model, optimizer, batches)
    with torch.no_grad():
        full = F.mse_loss(model(inputs), targets).item()
    ddp_print(f"epoch {epoch + 1} full-data loss {full:.6f}")
ddp_print(f"sum|w| {sum(p.abs().sum().item() for p in model.parameters()):.6f}")
