"""The entry imports Generator (a leftover of another script) but never builds it: its
BatchNorm layers are in no model of this program, so no DP008 (genda's train_dafl.py,
stop 63 s3)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from generator import Generator  # noqa: F401


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(8, 4)
    for step in range(2):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
