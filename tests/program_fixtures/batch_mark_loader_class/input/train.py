"""The training loop counts its epochs and leaves on the batch's wrap mark, taken through
another module's loader class (v2-B of stop 42). Sharded, the marked item is in one rank's
part: read on each rank, only that rank would count the epoch and leave the loop (rank 1
"Connection closed by peer"). Every rank must take the original's 5 steps."""

import numpy as np
import torch
import torch.nn as nn

from batches import Batches

np.random.seed(0)
torch.manual_seed(0)
batches = Batches(4)
model = nn.DataParallel(nn.Linear(3, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
epoch, step, max_epochs = 0, 0, 2
while True:
    if epoch >= max_epochs:
        break
    data = batches.get_batch()
    loss = (model(data["x"]) - data["y"]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
    if data["bounds"]["wrapped"]:
        epoch += 1
        print(f"epoch {epoch} ends at step {step}")
print(f"steps {step}")
E2E_DIGEST = [round(p.sum().item(), 4) for p in model.module.parameters()]
