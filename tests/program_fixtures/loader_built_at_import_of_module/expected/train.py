"""The entry imports the program's data module after code of its own, then trains in a
step loop that takes each batch with `next(iter(train_loader))` (FFA-Net's main.py).
Migrated, ddp_setup() must run before `from data import *`: the DistributedSampler the
migration gives the module-level loader asks for the process group when data.py is
imported (before: setup after the imports, "Default process group has not been
initialized" on every rank)."""

import warnings

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print

warnings.filterwarnings("ignore")
from _dp2ddp import ddp_setup
ddp_setup()
from data import *  # noqa: E402,F403


def main():
    model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(4):
        x, y = next(iter(train_loader))  # noqa: F405
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pairs = test_loader  # noqa: F405
        error = sum(float(((model(x) - y) ** 2).sum()) for x, y in pairs)
    ddp_print(f"steps 4 test error {error:.4f}")


if __name__ == "__main__":
    main()
