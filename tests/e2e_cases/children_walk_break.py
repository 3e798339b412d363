"""Fresh round stop 30, class U1 in a new spelling (Cysu/open-reid): forward() walks a
backbone's children until `pool` (`for name, module in self.base._modules.items(): ...
break`), the backbone from a table of constructors: its head gets no gradient. Before: no
DP041, "Expected to have finished reduction" at step 2 on both ranks. Now DP041 and
find_unused_parameters=True: the original's weights on both ranks."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x)).flatten(1))


class Embed(nn.Module):
    __factory = {18: Backbone}

    def __init__(self, depth=18):
        super().__init__()
        self.base = Embed.__factory[depth]()
        self.feat = nn.Linear(4, 2)

    def forward(self, x):
        for name, module in self.base._modules.items():
            if name == "pool":
                break
            x = module(x)
        return self.feat(x.mean((2, 3)))


torch.manual_seed(0)
model = nn.DataParallel(Embed())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(16, 3, 6, 6), torch.randn(16, 2))
for _epoch in range(2):
    for inputs, targets in DataLoader(data, batch_size=4, shuffle=False):
        optimizer.zero_grad()
        ((model(inputs) - targets) ** 2).mean().backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
