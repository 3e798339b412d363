"""Layers handed by forward() to a function of the module (not a method) that never reads
the parameter they bind (`scaled(self.blocks, x, 2.0)`), and layers whose only output a
module function returns is dropped (`h, _ = pair(self.a, self.b, x)`): their parameters
get no gradient. Before: no warning, DDP failed at step 2 ("Expected to have finished
reduction in the prior iteration"). Migrated with DP041's find_unused_parameters=True:
to the end, the weights the original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def scaled(layers, x, scale):
    return x * scale


def pair(first, second, x):
    h = torch.tanh(first(x))
    return h, second(h)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        h, _ = pair(self.a, self.b, x)
        return self.out(scaled(self.blocks, h, 2.0))


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
