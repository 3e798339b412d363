"""Prepared before the program's own wrap: the helper's re-wrap does not run."""

import torch
from torch import nn

from prepare import prepare


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(()))
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x / self.scale)


torch.manual_seed(0)
net = prepare(Scaled(), torch.randn(8, 4))
net = nn.DataParallel(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    net(torch.ones(8, 4)).pow(2).mean().backward()
    optimizer.step()
torch.save(net.module.state_dict(), "scaled.pt")
