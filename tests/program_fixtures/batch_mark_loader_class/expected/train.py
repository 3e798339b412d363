"""The training loop counts its epochs and leaves on the batch's wrap mark, taken through
another module's loader class (v2-B of stop 42). Sharded, the marked item is in one rank's
part: read on each rank, only that rank would count the epoch and leave the loop (rank 1
"Connection closed by peer"). Every rank must take the original's 5 steps."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_any_rank, ddp_print, ddp_setup
from batches import Batches

ddp_setup()


np.random.seed(0)
torch.manual_seed(0)
batches = Batches(4)
model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
epoch, step, max_epochs = 0, 0, 2
while True:
    if epoch >= max_epochs:
        break
    data = batches.get_batch()
    # dp2ddp: DP047 a batch reaching the model is not proved to be this rank's part
    loss = (model(data["x"]) - data["y"]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
    if ddp_any_rank(data["bounds"]["wrapped"]):
        epoch += 1
        ddp_print(f"epoch {epoch} ends at step {step}")
ddp_print(f"steps {step}")
E2E_DIGEST = [round(p.sum().item(), 4) for p in model.module.parameters()]
