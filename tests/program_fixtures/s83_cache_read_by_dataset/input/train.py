import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from scored import ScoredPairs

torch.manual_seed(0)
inputs = torch.randn(32, 5)
targets = torch.randn(32, 1)
net = nn.DataParallel(nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)))
sgd = torch.optim.SGD(net.parameters(), lr=0.05)
pairs = ScoredPairs(inputs, targets)
loader = DataLoader(pairs, batch_size=8)


def one_epoch(epoch):
    pairs.scores_file = os.path.join(".", "scores.txt")
    with torch.no_grad():
        with open(pairs.scores_file, "w") as out:
            out.write(" ".join("%.6f" % v for v in net(inputs)[:, 0].tolist()))
    for a, b in loader:
        err = nn.functional.mse_loss(net(a), b)
        sgd.zero_grad()
        err.backward()
        sgd.step()


for epoch in range(3):
    one_epoch(epoch)
print("PARAMSUM %.6f" % sum(p.detach().double().sum().item() for p in net.parameters()))
