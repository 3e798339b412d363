"""Each training batch is `next()` of another module's generator that draws it (class v1-B of
the stop-41 validation round): split per rank, every rank must cut its part of one draw
(rank 0's, in `with ddp_same_random():`), not of a draw of its own."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_print,
    ddp_same_random,
    ddp_setup,
    ddp_shard_batch,
)
from gen import generate_pair

ddp_setup()


data = np.linspace(0, 1, 64, dtype=np.float32).reshape(16, 4)
training_generator = generate_pair(data, 4)
model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for iteration in range(data.shape[0] // 4):
        with ddp_same_random():
            x, y = next(training_generator)
        x, y = ddp_shard_batch((x, y), source=training_generator)
        loss = ((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ddp_print("epoch", epoch, loss.item())
