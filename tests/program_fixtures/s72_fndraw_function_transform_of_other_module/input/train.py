"""A function of another module handed directly as a Dataset's transform
(`transform=random_flip`, torchcv's transforms package re-exporting it; the Dataset is a
third module's): random_flip draws `random.random()` per sample, seeded alike on every
rank: DP067 at the construction, naming the draw's file and line (kuangliu/torchcv@6291f3e,
round 25)."""
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from tcv.datasets.listdataset import ListDataset
from tcv.transforms import random_flip


def main():
    torch.manual_seed(0)
    random.seed(0)
    data = ListDataset(16, transform=random_flip)
    loader = DataLoader(data, batch_size=8, shuffle=False)
    model = nn.DataParallel(nn.Linear(1, 1, bias=False))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(2):
        for x in loader:
            loss = (model(x) - 1.0).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("weights %.6f" % model.module.weight.item())


if __name__ == "__main__":
    main()
