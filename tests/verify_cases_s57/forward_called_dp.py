"""Stop 56 (MusicTransformer's `mt.forward(batch_x)`, wrapped only with GPUs): the original
calls its model's forward() itself, so verify sees its parts, `self.Decoder(x, mask=...)`
and `self.fc(h)`, each called as a model; the migration's DDP forward calls the whole model.
verify said NOT EQUIVALENT: "rank 0: 0, rank 1: 0" samples of the second part, and every
parameter "optimized only by the migration" (`Decoder.embedding.weight` against
`embedding.weight`)."""

import random

import numpy as np
import torch
from torch import nn


class Data:
    def __init__(self):
        self.seqs = np.random.RandomState(0).randint(0, 16, size=(64, 9))

    def batch(self, n):
        seq = torch.tensor(self.seqs[random.sample(range(64), n)])
        return seq[:, :-1], seq[:, 1:]


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(16, 8)
        self.layer = nn.Linear(8, 8)

    def forward(self, x, mask=None):
        return self.layer(self.embedding(x)) * mask.unsqueeze(-1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.Decoder = Decoder()
        self.fc = nn.Linear(8, 16)

    def forward(self, x):
        return self.fc(self.Decoder(x, mask=(x != 0).float())).contiguous()


data = Data()
mt = Net()
opt = torch.optim.SGD(mt.parameters(), lr=0.1)
if torch.cuda.device_count() > 1:
    mt = torch.nn.DataParallel(mt)
for _ in range(4):
    x, y = data.batch(4)
    loss = nn.functional.cross_entropy(mt.forward(x).transpose(1, 2), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
