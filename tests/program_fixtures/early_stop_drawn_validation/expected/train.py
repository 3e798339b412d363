"""Early stopping decided by a validation loss over batches that another module's generator
draws (class v1-C, stop 41): the validation batch is drawn alike on every rank."""
import os

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


with ddp_same_random():
    data = np.random.rand(16, 4).astype(np.float32)
    valid = np.random.rand(8, 4).astype(np.float32)
    training_generator = generate_pair(data, 4)
    validation_generator = generate_pair(valid, 4)
torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
best_loss, bad, patience = 1e9, 0, 1
for epoch in range(40):
    for iteration in range(data.shape[0] // 4):
        with ddp_same_random():
            x, y = next(training_generator)
        x, y = ddp_shard_batch((x, y), source=training_generator)
        loss = ((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    losses = []
    with torch.no_grad():
        for i in range(valid.shape[0] // 4):
            with ddp_same_random():
                x, y = next(validation_generator)
            losses.append(((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean().item())
    valid_loss = np.average(losses)
    if valid_loss < best_loss:
        best_loss, bad = valid_loss, 0
    else:
        bad += 1
    if bad == patience:
        with open("stop_rank%s.txt" % os.environ.get("RANK", "0"), "w") as f:
            f.write("early stop at epoch %d\n" % epoch)
        break
ddp_print("done")
