"""A dataset that downloads its files on first use (issue 29).

`Numbers("data", download=True)` (lib/fetching.py, a library: not migrated) fetches the
file when it is not there. Every rank would, at once: two fetches into one file, and a
rank reading it half-written. Migrated, rank 0 fetches first and the other rank finds the
file (`ddp_rank0_first`).
"""

import os

import torch
import torch.nn as nn
from fetching import Numbers
from torch.utils.data import DataLoader


def main():
    data = Numbers("data", download=True)
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(1, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    fetched = sorted(p for p in os.listdir("data") if p.startswith("fetched"))
    print("fetched:", fetched)


if __name__ == "__main__":
    main()
