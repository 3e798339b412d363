"""Every layer is used through what __init__ builds from it (an nn.Sequential of attributes,
a ModuleList filled by append, a module holding a shared layer): DP041 must not claim a layer
unused, so the DDP wrap is not told to search the graph for unused parameters (a traversal
per step, and torch's warning on every rank). The ranks stay in sync to the end."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Head(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.shared = shared
        self.out = nn.Linear(6, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.shared(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 6)
        self.norm1 = nn.LayerNorm(6)
        self.features = nn.Sequential(self.fc1, self.norm1, nn.ReLU())
        self.fc2 = nn.Linear(6, 6)
        self.blocks = nn.ModuleList()
        self.blocks.append(self.fc2)
        self.mix = nn.Linear(6, 6)
        self.head = Head(self.mix)

    def forward(self, x):
        x = self.features(x)
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
loader = DataLoader(dataset, batch_size=16, shuffle=False)
model = Net()
model = nn.DataParallel(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    print(f"epoch {epoch} done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
