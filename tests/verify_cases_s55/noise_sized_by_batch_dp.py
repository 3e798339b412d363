"""A generator trained on noise sized by the loader's batch, drawn in the loop."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
real = torch.randn(32, 4)
model = nn.DataParallel(nn.Linear(4 + 2, 1))
loader = DataLoader(TensorDataset(real), batch_size=8, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(1):
    for (x,) in loader:
        b = x.size(0)
        noise = torch.randn(b, 2)
        out = model(torch.cat([x, noise], 1))
        loss = (out**2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("done")
