"""A library module in a folder that is no package (no __init__.py): its entries put the
folder on sys.path (`sys.path.insert(0, ".../lib")`) and `import trainer`."""

import torch
from torch import nn


def fit(model, loader, epochs=2):
    model = nn.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.module


def report(name, value):
    print(f"{name} {value:.4f}")
