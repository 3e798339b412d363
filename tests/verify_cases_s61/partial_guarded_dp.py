"""A submodule wrapped in place under a GPU count (VIPL-SLP/VAC_CSLR@71f3e03's
`model.conv2d = nn.DataParallel(model.conv2d)` under `if len(gpu_list) > 1`): the CPU run
of the original never reaches the wrap; the migration wraps unconditionally, and the head
outside DDP drifts per rank (DP042)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(data, batch_size=8)
model = Net()
if torch.cuda.device_count() > 1:
    model.body = nn.DataParallel(model.body)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
