"""A block builds a projection it uses only when the channel counts differ (the shape of
pytorch_stacked_hourglass's `Residual.skip_layer`), and a classifier head is built and never
called. DataParallel trains it; DDP fails at the second step ("Expected to have finished
reduction in the prior iteration") unless the wrap gets find_unused_parameters=True (DP041)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Residual(nn.Module):
    def __init__(self, inp, out):
        super().__init__()
        self.body = nn.Linear(inp, out)
        self.skip_layer = nn.Linear(inp, out)
        self.need_skip = inp != out

    def forward(self, x):
        residual = self.skip_layer(x) if self.need_skip else x
        return torch.tanh(self.body(x)) + residual


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Residual(6, 6)
        self.second = Residual(6, 1)
        self.unused_head = nn.Linear(6, 3)

    def forward(self, x):
        return self.second(self.first(x))


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
loader = DataLoader(dataset, batch_size=16, shuffle=True)
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
