"""A residual carried through a loop in forward() and its name bound again after
the loop (kan-bayashi/PytorchWaveNetVocoder@d071ed3's WaveNet: `output, skip = ...` per
block, then `output = sum(skip_connections)`), so the last block's residual layer gets
no gradient. Before: no warning, DDP failed at step 2 ("Expected to have finished
reduction in the prior iteration"). Migrated with DP041's
find_unused_parameters=True: to the end, the weights the original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.res = nn.Linear(n, n)
        self.skip = nn.Linear(n, n)

    def forward(self, x):
        h = torch.tanh(x)
        return x + self.res(h), self.skip(h)


class Net(nn.Module):
    def __init__(self, n=4, layers=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(n) for _ in range(layers))
        self.out = nn.Linear(n, 1)

    def forward(self, x):
        output, skips = x, []
        for block in self.blocks:
            output, skip = block(output)
            skips.append(skip)
        output = sum(skips)
        return self.out(output)


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
