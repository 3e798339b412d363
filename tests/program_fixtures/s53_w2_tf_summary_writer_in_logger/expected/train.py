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
from logger import Logger

ddp_setup()


torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = inputs.sum(1, keepdim=True)
dataset = TensorDataset(inputs, targets)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logger = Logger("logs", name="run")
for epoch in range(3):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    logger.scalar_summary("Train/loss", loss.item(), epoch)
ddp_print("weights %.4f" % model.module.weight.sum().item())
