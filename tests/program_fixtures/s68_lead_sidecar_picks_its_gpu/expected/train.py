"""The training entry: DataParallel under `__main__`."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_setup


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2)

    def forward(self, x):
        return self.proj(x)


if __name__ == "__main__":
    ddp_setup()
    model = DistributedDataParallel(Tagger().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.ones(4, 4)).sum().backward()
        optimizer.step()
    if ddp_is_main():
        torch.save(model.module.state_dict(), "tagger.pt")
