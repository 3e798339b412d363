"""A library module in a folder that is no package (no __init__.py): its entries put the
folder on sys.path (`sys.path.insert(0, ".../lib")`) and `import trainer`."""

import torch
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def fit(model, loader, epochs=2):
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.module


def report(name, value):
    ddp_print(f"{name} {value:.4f}")
