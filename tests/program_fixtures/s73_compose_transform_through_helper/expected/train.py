"""The program's own augmentation (aug.RandomScale, drawing from `random`) wrapped in a
library Compose in main(), handed through a helper's parameter (`make_loader(transform,
batch_size)`) to a Dataset of another module whose __getitem__ calls `self.transform(x)`.
`random` is seeded alike on every rank: rank r's k-th sample gets every rank's k-th factor
(DP067 at the dataset's construction; before: unsaid). Issue 28, round 25 (MemDPC)."""
import random

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torchvision import transforms

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from aug import RandomScale
from ds import Ones


def make_loader(transform, batch_size):
    ds = Ones(8, transform=transform)
    return DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(ds, shuffle=False),
    )


def main():
    ddp_setup()
    torch.manual_seed(0)
    random.seed(0)
    model = DistributedDataParallel(
        nn.Linear(1, 1, bias=False).to(DEVICE), device_ids=DEVICE_IDS
    )
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
    ddp_print("final w %.6f" % model.module.weight.item())


if __name__ == "__main__":
    main()
