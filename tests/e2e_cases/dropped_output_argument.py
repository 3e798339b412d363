"""Layers handed as arguments to a helper method per block, the residual carried and
the skips summed (kan-bayashi/PytorchWaveNetVocoder@d071ed3's WaveNet: `output, skip =
self._residual_forward(output, ..., self.skip_1x1[l])`), so the last block's residual
layer gets no gradient. Before: no warning, DDP failed at step 2 ("Expected to have
finished reduction in the prior iteration"). Migrated with DP041's
find_unused_parameters=True: to the end, the weights the original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.n = n
        self.res = nn.ModuleList()
        self.skip = nn.ModuleList()
        for _ in range(n):
            self.res += [nn.Linear(4, 4)]
            self.skip += [nn.Linear(4, 4)]
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        output, skips = x, []
        for i in range(self.n):
            output, skip = self._block(output, self.res[i], self.skip[i])
            skips.append(skip)
        return self.out(sum(skips))

    def _block(self, x, res, skip):
        h = torch.tanh(x)
        return res(h) + x, skip(h)


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
