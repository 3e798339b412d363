"""Issue 28, early stopping on a figure summed over a validation loader that the data pass
cannot tell from training (no `eval()`, no `no_grad()`, shuffled, not named as evaluation):
`val` sums the batch losses and `if bad >= patience: break` leaves the epoch loop. Before,
the loader was sharded as training data and each rank decided on its own half. Its figures
decide the break, so it is an evaluation loader: sharded, `val` is summed over the ranks
right after the loop, and both ranks stop at the original's epoch."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
generator = torch.Generator().manual_seed(5)
train_set = TensorDataset(
    torch.randn(16, 4, generator=generator), torch.randn(16, 1, generator=generator)
)
val_set = TensorDataset(
    torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)
)
train_loader = DataLoader(train_set, batch_size=4, shuffle=False)
holdout = DataLoader(val_set, batch_size=2, shuffle=True)
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
    val = 0.0
    for x, y in holdout:
        val += crit(model(x), y).item() * x.size(0)  # summed per sample
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
