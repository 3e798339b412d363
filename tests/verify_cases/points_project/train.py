"""verify case, original: a small DataParallel project (entry + local module + data folder).

The data is read by a path relative to the working directory, the model comes from the
project's own `netlib` module, and the optimizer is created anew at every epoch (its momentum
restarts), as some real scripts do. A log file's handler is built on every rank (appending;
rank 0 alone logs once migrated): verify --to-end counts it written by rank 0 alone. Run from
this folder: `python train.py --epochs 3`.
"""

import argparse
import logging
import os

import torch
import torch.nn as nn
from netlib import CsvPoints, Net
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()
    log = logging.getLogger("points")
    log.setLevel(logging.INFO)
    log.addHandler(logging.FileHandler("train.log"))

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.to(device)

    loader = DataLoader(CsvPoints("data/points.csv"), batch_size=16, shuffle=True)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    os.makedirs("checkpoints", exist_ok=True)
    torch.save(model.state_dict(), "checkpoints/last.pt")
    log.info("saved checkpoints/last.pt")


if __name__ == "__main__":
    main()
