"""Stop 59 s3, left item 2 (vansky/neural-complexity@3c057f8): `nn.DataParallel(model,
dim=1)` under a GPU count, false on CPU, and dropout on the time-major batch (T, B, F).
verify's original drew each DataParallel chunk's mask as rank r draws its own, but cut the
batch along dim 0 (its time steps): masks over (3, 4, 8) against the ranks' (5, 2, 8), and
"dropout masks did not line up" for a right migration."""

import torch
from torch import nn

torch.manual_seed(0)
T, B = 5, 4
series = torch.randn(T, 3 * B, 3)
target = torch.randn(T, 3 * B, 1)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Dropout(0.2), nn.Linear(8, 1))
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
