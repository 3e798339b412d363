"""A loader built at import, the wrap in a helper train() calls, the loop in main() (L1, stop
31, residual-flows' train_img.py): the DistributedSampler the migration gives the loader needs
the process group at import, so ddp_setup() runs at import (before: first thing in main(),
"Default process group has not been initialized" on every rank). The first script of the
launch: a later one would find the group an earlier script set up."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 2), torch.randn(16, 1))
train_loader = DataLoader(data, batch_size=4, shuffle=True)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def parallelize(model):
    return torch.nn.DataParallel(model)


def train(epoch, model):
    model = parallelize(model)
    for x, y in train_loader:
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    for epoch in range(2):
        train(epoch, model)
    print(f"weight sum {float(model.weight.detach().sum()):.6f}")


if __name__ == "__main__":
    main()
