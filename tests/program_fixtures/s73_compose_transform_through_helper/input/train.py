"""The program's own augmentation (aug.RandomScale, drawing from `random`) wrapped in a
library Compose in main(), handed through a helper's parameter (`make_loader(transform,
batch_size)`) to a Dataset of another module whose __getitem__ calls `self.transform(x)`.
`random` is seeded alike on every rank: rank r's k-th sample gets every rank's k-th factor
(DP067 at the dataset's construction; before: unsaid). Issue 28, round 25 (MemDPC)."""
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import transforms

from aug import RandomScale
from ds import Ones


def make_loader(transform, batch_size):
    ds = Ones(8, transform=transform)
    return DataLoader(ds, batch_size=batch_size, shuffle=False)


def main():
    torch.manual_seed(0)
    random.seed(0)
    model = nn.DataParallel(nn.Linear(1, 1, bias=False))
    with torch.no_grad():
        model.module.weight.fill_(0.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    transform = transforms.Compose([RandomScale()])
    loader = make_loader(transform, batch_size=8)
    for epoch in range(2):
        for x in loader:
            out = model(torch.ones_like(x))
            loss = ((out - x) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("final w %.6f" % model.module.weight.item())


if __name__ == "__main__":
    main()
