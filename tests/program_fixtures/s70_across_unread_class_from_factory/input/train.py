"""The wrapped model is built by a factory of another module that picks its class from a
table at run time: dp2ddp cannot tell which forward() runs, so whether the sum of what
DataParallel gathered is over the batch (per-row values: scaled by WORLD_SIZE) or over the
replicas' means (this one: unscaled) is not proved. Said (DP221), not silently doubled."""
import torch
import torch.nn as nn

from registry import build

torch.manual_seed(0)

model = nn.DataParallel(build("distill"))
x = torch.randn(16, 8)
y = torch.randint(0, 4, (16,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(2):
    for xb, yb in loader:
        loss = model(xb, yb)[:, 0].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

print('weights %.6f' % sum(p.abs().sum().item() for p in model.parameters()))
