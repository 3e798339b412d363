"""Stop 56 s1, class r2-A of round 8b (jason9693/MusicTransformer-pytorch@fe29667): the
batch reaching the wrapped model is made by another module's method that picks files
(names from os.listdir, made rank 0's) and draws a window per file. Agreed is not sharded:
each rank trains its half of one draw, the original's global batch of 4. E2E_DIGEST: per
step, the file (token // 16) of each row this rank trained on (before: every rank trained
all 4 rows of its own draws, no split and no warning saying so). Nothing seeds Python's
stream: each process draws from its own, as the original's under torchrun."""

import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_same_random, ddp_setup, ddp_shard_batch
from seqdata import Sequences

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(64, 8)
        self.fc = nn.Linear(8, 64)

    def forward(self, x):
        return self.fc(self.emb(x))


here = os.path.dirname(os.path.abspath(__file__))
dataset = Sequences(os.path.join(here, "seqs"))
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(2):
    for step in range(2):
        with ddp_same_random():
            x, y = dataset.xy(4, 8)
        x, y = ddp_shard_batch((x, y))
        x = torch.from_numpy(x).long()
        y = torch.from_numpy(y).long()
        out = model(x)
        loss = nn.functional.cross_entropy(out.reshape(-1, 64), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rows.append([int(t) // 16 for t in x[:, 0]])
E2E_DIGEST = rows
