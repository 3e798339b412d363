"""Stop 58 v1 (andy-yun/pytorch-0.4-yolov3@7928dc9): a learning rate that moves each weight
by about 1e-8 a step. verify's fixed absolute tolerance (atol 1e-8) passed every update, so
a migration whose gradient is half the original's read EQUIVALENT. The loss is a sum over
the batch divided by the global batch size, 8."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(data, batch_size=8)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = nn.DataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=1e-8)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y, reduction="sum") / 8
    opt.zero_grad()
    loss.backward()
    opt.step()
