"""Stop 58 v2-A/v2-D (vansky/neural-complexity@3c057f8): the program wraps its model and
takes the wrap back out before it trains; migrated, each rank trains its own copy. Given as
`verify ORIGINAL MIGRATED`, verify said "dp2ddp migrate named no place where they go apart"
(migrate's warnings were read only where verify migrated), though DP062 names the unwrap."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(data, batch_size=8)
model = nn.Linear(4, 1)
model = nn.DataParallel(model)
if isinstance(model, nn.DataParallel):
    model = model.module
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
