"""A fixed batch gathered by reading the shuffled training loader where nothing trains
(class G4, the shape of GAN_stability's `get_nsamples`): a helper restarting the loader
with `next(iter(loader))` until it has 8 samples, and a loop taking the first two batches
and stopping with `break`. From the sharded loader each rank would gather its own shard,
the helper the same samples twice (`[17, 17, 35, 35, ...]`). Migrated, both read the whole
dataset in global batches, in rank 0's order: E2E_DIGEST (the gathered samples) is the
original's on both ranks."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
dataset = TensorDataset(torch.arange(64.0).view(64, 1))
loader = DataLoader(dataset, batch_size=8, shuffle=True)
model = nn.DataParallel(nn.Linear(1, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.001)


def get_nsamples(data_loader, n):
    xs, k = [], 0
    while k < n:
        (x,) = next(iter(data_loader))
        xs.append(x)
        k += x.size(0)
    return torch.cat(xs)[:n]


x_fixed = get_nsamples(loader, 8)
first = []
for (x,) in loader:
    first.append(x)
    if len(first) == 2:
        break
for epoch in range(2):
    for (x,) in loader:
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    with torch.no_grad():
        grid = model(x_fixed)
    print(f"epoch {epoch}: grid {grid.shape[0]}")
E2E_DIGEST = [*x_fixed.view(-1).tolist(), *torch.cat(first).view(-1).tolist()]
print("fixed", E2E_DIGEST)
