"""The network is picked by name through a factory: its class is not known statically, and
a module of the program leaves a layer without a gradient on some paths (DP041)."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models import get_network


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", default="pose")
    args = parser.parse_args()
    model = get_network(args.network)
    model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(32, 6), torch.randn(32, 1))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        print("epoch", epoch)


if __name__ == "__main__":
    main()
