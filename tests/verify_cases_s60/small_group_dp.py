"""Stop 60 (stop 59 s3's left item 1): a small tensor beside large ones. The network
trains at lr 0.1; a learnable gain has a group of its own at lr 2e-9, so its update is about
6e-9 a step while the network's are about 1e-2. A penalty on the gain sums over the batch
and divides by the global batch size, 8. verify's absolute term was capped by the step's
largest update (1e-4 of it, 1e-6 here) and so stayed atol, 1e-8: the gain's halved update
in the migration passed."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Gained(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.gain = nn.Parameter(torch.full((1,), 1e-3))

    def forward(self, x):
        return self.body(x), self.gain * x.abs().sum(1, keepdim=True)


torch.manual_seed(0)
data = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
loader = DataLoader(data, batch_size=8)
net = Gained()
model = nn.DataParallel(net)
opt = torch.optim.SGD(
    [{"params": net.body.parameters()}, {"params": [net.gain], "lr": 2e-9}], lr=0.1
)
for x, y in loader:
    out, penalty = model(x)
    loss = nn.functional.mse_loss(out, y) + penalty.sum() / 8
    opt.zero_grad()
    loss.backward()
    opt.step()
