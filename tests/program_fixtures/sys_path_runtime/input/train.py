import os
import sys

import torch
import torch.nn as nn

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
        for x, y in loader:
            loss = train_step(model, opt, x, y)
        print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    model = nn.DataParallel(nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, val_loader = make_loaders(16)
    fit(model, opt, train_loader, 2)
    with torch.no_grad():
        for x, y in val_loader:
            model(x)


if __name__ == "__main__":
    main()
