"""The wrap lives in a method of a plain class that the script calls only under a GPU flag
(facebookresearch/DrQA@6d7c1b7: `DocReader.parallelize()` under `if args.parallel:`, False
by default). Migrated with the call left under the flag, the ranks trained two models apart
at the default, each on its own shard; the call is hoisted as a guarded wrap is, so every
rank wraps and, at the default as with the flag, trains the original's model."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Reader:
    def __init__(self):
        self.network = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=0.1)

    def parallelize(self):
        self.network = nn.DataParallel(self.network)

    def update(self, x):
        loss = self.network(x).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


parser = argparse.ArgumentParser()
parser.add_argument("--parallel", action="store_true")
args, _ = parser.parse_known_args()
torch.manual_seed(0)
model = Reader()
if args.parallel:
    model.parallelize()
data = TensorDataset(torch.randn(32, 4))
for _epoch in range(2):
    for (x,) in DataLoader(data, batch_size=8, shuffle=False):
        model.update(x)
print("done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.network.parameters()]
