"""Issue 28, an evaluation figure deciding when training stops (real-world:
zhouhaoyi/Informer2020@29f2a73): the mean of a list of per-batch losses over the
validation loader is compared with the best so far, and `break` leaves the epoch loop
after `patience` epochs without improvement. Sharded, each rank would decide on its own
half: one rank leaves while the other waits in the next epoch's all-reduce forever. The
figure must be the original's on every rank (the loader stays whole), and both ranks stop
at the original's epoch."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
generator = torch.Generator().manual_seed(5)


def rows(n):
    return TensorDataset(
        torch.randn(n, 4, generator=generator), torch.randn(n, 1, generator=generator)
    )


train_set = rows(16)
val_set = rows(8)
train_loader = DataLoader(train_set, batch_size=4, shuffle=False)
val_loader = DataLoader(val_set, batch_size=2, shuffle=False)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
crit = nn.MSELoss()
best, bad, patience, stopped = float("inf"), 0, 2, -1
LOSSES = []
for epoch in range(30):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        crit(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val = float(np.mean([crit(model(x), y).item() for x, y in val_loader]))
    LOSSES.append(round(val, 4))
    if val > best:
        bad += 1
    else:
        best, bad = val, 0
    stopped = epoch
    if bad >= patience:
        break
E2E_DIGEST = [stopped, *LOSSES]
print("final", E2E_DIGEST)
