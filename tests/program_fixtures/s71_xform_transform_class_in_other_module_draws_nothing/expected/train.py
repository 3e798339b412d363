import random

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from dataset import Points
from jitter import RandomJitter


def main():
    ddp_setup()
    random.seed(0)
    torch.manual_seed(0)
    data = Points(32, transform=RandomJitter(p=0.5))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    total = sum(p.sum().item() for p in model.parameters())
    ddp_print(f"weights {total:.6f}")


if __name__ == "__main__":
    main()
