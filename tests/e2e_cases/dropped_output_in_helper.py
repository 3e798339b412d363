"""A layer whose output never reaches the result, inside a method forward() calls
(ksw0306/ClariNet@df31b4c: each flow's forward() returns `self.wavenet(x)`, which sums the
residual blocks' skips and carries the residual on, so the last block's residual layer gets
no gradient). Before: no warning, DDP failed at step 2 ("Expected to have finished
reduction in the prior iteration"). Migrated with DP041's find_unused_parameters=True: to
the end, the weights the original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class ResBlock(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.conv = nn.Linear(n, n)
        self.res = nn.Linear(n, n)
        self.skip = nn.Linear(n, n)

    def forward(self, h):
        out = torch.tanh(self.conv(h))
        return h + self.res(out), self.skip(out)


class Net(nn.Module):
    def __init__(self, n=4, layers=2):
        super().__init__()
        self.blocks = nn.ModuleList(ResBlock(n) for _ in range(layers))
        self.out = nn.Linear(n, 1)

    def forward(self, x):
        return self.run(x)

    def run(self, x):
        h, skip = x, 0
        for block in self.blocks:
            h, s = block(h)
            skip = skip + s
        return self.out(skip)


torch.manual_seed(0)
model = nn.DataParallel(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
for _epoch in range(2):
    for x, y in DataLoader(data, batch_size=8, shuffle=False):
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
