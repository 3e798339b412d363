"""Stop 58 v2-D (vansky/neural-complexity@3c057f8): `nn.DataParallel(model, dim=1)` under a
GPU count, false on CPU, so the run builds no DataParallel; the batches are time-major
(T, B, F), cut by hand. verify counted their rows (time steps) as samples: "each rank fed
the original's whole batch"."""

import torch
from torch import nn

torch.manual_seed(0)
T, B = 5, 4
series = torch.randn(T, 3 * B, 3)
target = torch.randn(T, 3 * B, 1)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model, dim=1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = series[:, step * B : (step + 1) * B]
    y = target[:, step * B : (step + 1) * B]
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
