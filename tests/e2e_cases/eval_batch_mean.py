"""Issue 28, an evaluation figure that is a mean of per-batch means: `val += loss.item()`
of a mean-reduced criterion, divided by `len(val_loader)`. Sharded with the figure and the
batch count summed over the ranks, each global batch became two per-rank batches, each
adding its own mean: with 7 samples in batches of 4, main printed 1.0614 where the original
printed 1.1143, without a word (a raw sum of batch means would print about twice the
original's). A mean per batch is not a sum over samples: the loader stays whole (DP015),
every rank prints the original's figures (E2E_DIGEST). The count of correct samples beside
it is a sum: right either way."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
generator = torch.Generator().manual_seed(7)
train_set = TensorDataset(
    torch.randn(16, 4, generator=generator), torch.randint(0, 3, (16,), generator=generator)
)
val_set = TensorDataset(
    torch.randn(7, 4, generator=generator), torch.randint(0, 3, (7,), generator=generator)
)
train_loader = DataLoader(train_set, batch_size=4, shuffle=False)
val_loader = DataLoader(val_set, batch_size=4, shuffle=False)
model = nn.DataParallel(nn.Linear(4, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
FIGURES = []
for epoch in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        crit(model(x), y).backward()
        optimizer.step()
    model.eval()
    val, correct = 0.0, 0
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            val += crit(out, y).item()  # a per-batch mean
            correct += (out.argmax(1) == y).sum().item()
    val /= len(val_loader)
    print("epoch", epoch, "val loss", round(val, 4), "correct", correct)
    FIGURES += [round(val, 4), correct]
E2E_DIGEST = FIGURES
print("final", E2E_DIGEST)
