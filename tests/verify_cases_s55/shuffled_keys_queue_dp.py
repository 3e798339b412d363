"""Momentum-contrast shape: keys shuffled by a method forward calls, a queue of past keys
updated in forward."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Contrast(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Linear(8, 4))
        self.register_buffer("queue", torch.randn(16, 4))

    def get_shuffle_ids(self, n):
        forward_ids = torch.randperm(n)
        return forward_ids, torch.argsort(forward_ids)

    def forward(self, x):
        shuffle, unshuffle = self.get_shuffle_ids(x.size(0))
        k = self.encoder(x[shuffle])[unshuffle]
        q = self.encoder(x)
        logits = q @ self.queue.t()
        self.queue = torch.cat([k.detach(), self.queue[: -k.size(0)]])
        return logits


torch.manual_seed(0)
xs = torch.randn(32, 6)
model = nn.DataParallel(Contrast())
loader = DataLoader(TensorDataset(xs), batch_size=8, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for (x,) in loader:
    loss = F.log_softmax(model(x), 1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
