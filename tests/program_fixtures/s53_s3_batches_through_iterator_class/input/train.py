# Batches drawn through an object of another module's class built from a loader this module
# shards (shjo-april/PuzzleCAM@659b4c1 train_classification_with_puzzle.py:315-333,
# `train_iterator = Iterator(train_loader)`, `images, labels = train_iterator.get()`).
# core/datasets.py's `get()` returns `next(self.iterator)`, `self.iterator` bound only to
# `iter(self.loader)`, `self.loader` the constructor's first parameter: the loader's own
# batches, this rank's part (stop 53 s3: proved, no DP047; before: DP047 "what it gives is
# not followed"). The summed loss keeps `(loss * WORLD_SIZE)`.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from core.datasets import Iterator

torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1), torch.arange(32))
train_loader = DataLoader(data, batch_size=8, shuffle=True, drop_last=True)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
train_iterator = Iterator(train_loader)
seen = []
for iteration in range(8):
    images, labels, ids = train_iterator.get()
    loss = ((model(images) - labels) ** 2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    seen.extend(ids.tolist())
print("weights %.4f" % model.module.weight.sum().item())
E2E_DIGEST = seen
