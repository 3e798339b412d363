"""Issue 28 class U1 (layumi/Person_reID_baseline_pytorch's ft_net): forward() calls a
backbone's layers one by one, never the backbone itself, so the backbone's own head gets no
gradient. Before: no DP041, DDP stopped at step 2 ("Expected to have finished reduction")."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Linear(4, 8)
        self.pool = nn.ReLU()
        self.fc = nn.Linear(8, 10)  # the backbone's own head

    def forward(self, x):
        return self.fc(self.pool(self.conv1(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Backbone()
        self.classifier = nn.Linear(8, 2)

    def forward(self, x):
        return self.classifier(self.trunk(x))

    def trunk(self, x):
        x = self.model.conv1(x)
        return self.model.pool(x)


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
model = nn.DataParallel(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for x, y in DataLoader(data, batch_size=8, shuffle=False):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
