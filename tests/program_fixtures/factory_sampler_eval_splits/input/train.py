"""Train, dev and test loaders from another module's factory: the dev accuracy picks the
checkpoint, the test accuracy is printed at the end. Every rank must count all of dev and
test (6 and 10 samples), as the original did."""

import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from loaders import build_loader


def split(n, offset):
    x = torch.linspace(-1, 1, n * 4).reshape(n, 4) + offset
    return TensorDataset(x, (x.sum(1) > 4 * offset).long())


def accuracy(net, loader):
    net.eval()
    hits = seen = 0
    with torch.no_grad():
        for x, y in loader:
            hits += (net(x).argmax(1) == y).sum().item()
            seen += y.numel()
    net.train()
    return hits, seen


torch.manual_seed(0)
net = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.5)
train_loader = build_loader(split(8, 0.0), 8, "train")
dev_loader = build_loader(split(6, 0.1), 2, "dev")
test_loader = build_loader(split(10, -0.1), 4, "test")
best = -1
for epoch in range(3):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    hits, seen = accuracy(net, dev_loader)
    print(f"epoch {epoch} dev {hits}/{seen}")
    if hits > best:
        best = hits
        torch.save(net.module.state_dict(), "best.pt")
hits, seen = accuracy(net, test_loader)
print(f"test {hits}/{seen}")
E2E_DIGEST = [round(p.sum().item(), 4) for p in net.module.parameters()]
