"""Stop 57 (luodhhh/ModernTCN@56a9a2c, imputation): a mask drawn per step over the batch,
`torch.rand(B, N)`, which dp2ddp migrates to `ddp_draw_share(...)` (rank 0's draw for the
whole global batch, each rank its rows: the original's values), and a loss averaged over the
masked entries (DP043: each rank's own count). verify named "random numbers drawn inside the
training loop" beside DP043, though every draw of the ranks was the original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 6))
loader = DataLoader(data, batch_size=4)
model = nn.DataParallel(nn.Linear(6, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for (x,) in loader:
    B, N = x.shape
    mask = torch.rand(B, N)
    out = model(x * (mask > 0.5))
    loss = ((out - x) ** 2)[mask <= 0.5].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
