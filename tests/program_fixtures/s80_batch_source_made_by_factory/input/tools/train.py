"""Batches from an object another module's factory makes (round 33, huanghoujing/AlignedReID-
Re-Production-Pytorch@2e2d454's `create_dataset(...)` and `next_batch()`): its class is not
known here, so what `next_batch()` returns is data nobody split: split where it is bound, as
DataParallel's scatter split it (before: every rank trained on the whole batch, no warning)."""
import sys

sys.path.insert(0, ".")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

from source.factory import make_stream  # noqa: E402

rng = np.random.default_rng(0)
x = rng.standard_normal((32, 4)).astype(np.float32)
y = x.sum(1, keepdims=True)
stream = make_stream(x=x, y=y, batch_size=8)
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(8):
    xb, yb = stream.next_batch()
    loss = nn.functional.mse_loss(model(torch.from_numpy(xb)), torch.from_numpy(yb))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("weights", round(model.module.weight.sum().item(), 6))
