"""The entry imports the program's data module after code of its own, then trains in a
step loop that takes each batch with `next(iter(train_loader))` (FFA-Net's main.py).
Migrated, ddp_setup() must run before `from data import *`: the DistributedSampler the
migration gives the module-level loader asks for the process group when data.py is
imported (before: setup after the imports, "Default process group has not been
initialized" on every rank)."""

import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")
from data import *  # noqa: E402,F403


def main():
    model = nn.DataParallel(nn.Linear(3, 1))
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
    print(f"steps 4 test error {error:.4f}")


if __name__ == "__main__":
    main()
