"""Validation round stop 42 (helper v2), class v2-A (ruotianluo/ImageCaptioning.pytorch's
MySampler): the loader's own sampler has a length, but its iterator is itself and never
stops: at the end of each pass it reshuffles (numpy's global generator) and marks the wrap in
its next item; the loop takes its batches with next() and stops after 5 steps. Migrated,
DdpSamplerShard listed the sampler whole before the first batch: every rank hung (no step,
memory without bound). Now its first len() items are listed and the rest drawn one batch at
a time, alike on every rank: each rank takes its half of the original's batches (across
the wrap), the original's weights."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, Sampler


class Rows(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, item):
        index, wrapped = item
        return torch.full((3,), float(index)), wrapped


class WrappingSampler(Sampler):
    def __init__(self, n):
        self.n = n
        self.reset()

    def reset(self):
        self.order = [int(i) for i in np.random.permutation(self.n)]
        self.position = 0

    def __iter__(self):
        return self

    def __next__(self):
        wrapped = False
        if self.position == self.n:
            self.reset()
            wrapped = True
        self.position += 1
        return self.order[self.position - 1], wrapped

    def __len__(self):
        return self.n


np.random.seed(0)
torch.manual_seed(0)
loader = DataLoader(Rows(), batch_size=4, sampler=WrappingSampler(8))
batches = iter(loader)
model = nn.DataParallel(nn.Linear(3, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _step in range(5):
    x, _wrapped = next(batches)
    loss = (model(x) - 1).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
