"""Training batches from `next()` of a generator function that draws them (class v1-B of
the stop-41 validation round, ModelsGenesis@12f7feb's generate_pair): Python's `random`,
never seeded, picks 4 of 16 rows each step. Migrated, each rank keeps its 2 rows of one
draw, rank 0's; E2E_DIGEST lists the rows each step gave this process."""

import random

import numpy as np
import torch
import torch.nn as nn


def generate_pair(data, batch_size):
    while True:
        index = list(range(data.shape[0]))
        random.shuffle(index)
        y = data[index[:batch_size]]
        yield y + 0.1 * np.random.rand(*y.shape).astype(np.float32), y


data = np.repeat(np.arange(16, dtype=np.float32)[:, None], 4, axis=1)
training_generator = generate_pair(data, 4)
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
E2E_DIGEST = []
for _epoch in range(2):
    for _step in range(data.shape[0] // 4):
        x, y = next(training_generator)
        E2E_DIGEST += [float(r) for r in y[:, 0]]
        loss = ((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
