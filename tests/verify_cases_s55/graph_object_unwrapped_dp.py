"""A graph model fed a graph object (no tensor argument), wrapped only where GPUs are seen."""

import torch
import torch.nn as nn


class Graph:
    def __init__(self, x, adj):
        self.x, self.adj = x, adj


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Linear(4, 8)
        self.conv2 = nn.Linear(8, 2)

    def forward(self, g):
        h = torch.relu(g.adj @ self.conv1(g.x))
        return g.adj @ self.conv2(h)


torch.manual_seed(0)
g = Graph(torch.randn(6, 4), torch.eye(6) + 0.1)
y = torch.randint(0, 2, (6,))
model = GCN()
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(4):
    loss = nn.functional.cross_entropy(model(g), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}")
