import os
import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

sys.path.insert(0, os.environ.get("LOADERS_DIR", "common"))
from loaders import make_loaders  # noqa: E402


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def fit(model, opt, loader, epochs):
    for epoch in range(epochs):
        # dp2ddp: DP027 training loader from a module dp2ddp could not follow
        for x, y in loader:
            loss = train_step(model, opt, x, y)
        ddp_print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(8, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, val_loader = make_loaders(16)
    fit(model, opt, train_loader, 2)
    with torch.no_grad():
        for x, y in val_loader:
            model(x)


if __name__ == "__main__":
    main()
