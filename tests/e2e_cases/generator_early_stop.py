"""Early stopping decided by a validation loss over batches a generator function draws
(class v1-C of the stop-41 validation round, ModelsGenesis@12f7feb: `next(validation_
generator)` of generate_pair, Python's and numpy's global streams, never seeded). Each rank
drew its own validation batches: its own loss, its own epoch to stop at, and the rank that
went on waited in DDP's all-reduce for one that had left ("Connection closed by peer").
Migrated, every rank evaluates rank 0's draw; E2E_DIGEST lists this process's validation
losses, then the epoch it stopped at."""

import random

import numpy as np
import torch
import torch.nn as nn


def generate_pair(data, batch_size):
    while True:
        index = list(range(data.shape[0]))
        random.shuffle(index)
        y = data[index[:batch_size]]
        yield y + 0.5 * np.random.rand(*y.shape).astype(np.float32), y


data = np.random.rand(16, 4).astype(np.float32)
valid = np.random.rand(8, 4).astype(np.float32)
training_generator = generate_pair(data, 4)
validation_generator = generate_pair(valid, 4)
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
best_loss, bad, patience = 1e9, 0, 1
E2E_DIGEST = []
for epoch in range(30):
    for _step in range(data.shape[0] // 4):
        x, y = next(training_generator)
        loss = ((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    losses = []
    with torch.no_grad():
        for _i in range(valid.shape[0] // 4):
            x, y = next(validation_generator)
            losses.append(((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean().item())
    valid_loss = float(np.average(losses))
    E2E_DIGEST.append(round(valid_loss, 6))
    if valid_loss < best_loss:
        best_loss, bad = valid_loss, 0
    else:
        bad += 1
    if bad == patience:
        E2E_DIGEST.append(epoch)
        break
