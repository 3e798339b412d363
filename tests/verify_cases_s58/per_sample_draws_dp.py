"""Stop 57 (zztianzz/PF-Net-Point-Fractal-Network@ab7a70b): a value drawn per sample with
Python's `random.sample` in a loop over the batch, in steps that each also start a loader's
iterator (an evaluation batch). A loader's iterator draws torch's seed, so verify measured no
draw in such a step, and said "no known cause matched"."""

import random

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 8), torch.randn(16, 1))
loader = DataLoader(data, batch_size=4)
held_out = DataLoader(TensorDataset(torch.randn(4, 8)), batch_size=4)
model = nn.DataParallel(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scales = [0.5, 1.0, 1.5, 2.0, 3.0]
for x, y in loader:
    with torch.no_grad():
        model(next(iter(held_out))[0])
    x = torch.stack([x[m] * random.sample(scales, 1)[0] for m in range(x.size(0))])
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
