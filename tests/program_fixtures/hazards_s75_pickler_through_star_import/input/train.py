"""A program function reached through `from ckpt import *` pickles the wrapped model whole
(validation round 27, an image-captioning repo's `from utils import *`): as through a named
import, the call hands it the inner model where that is all the function does with it, and
says DP070 where it does more; the star import no longer hides the function."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from ckpt import *

model = nn.DataParallel(nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 2)), batch_size=4)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    save_checkpoint(epoch, model, optimizer)
print(describe(model))
