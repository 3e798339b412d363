"""A small DataParallel training script. tests/test_multinode.py migrates it and launches it
on two torchrun "nodes" on localhost.

Every process draws different data (seeded by its pid), so the weights only agree across
processes at the end if DDP averaged the gradients.
"""

import os

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model = model.cuda() if torch.cuda.is_available() else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    generator = torch.Generator().manual_seed(os.getpid())
    inputs = torch.randn(64, 4, generator=generator)
    targets = inputs.sum(dim=1, keepdim=True)
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=16, shuffle=True)

    for epoch in range(2):  # noqa: B007 (the migration adds set_epoch(epoch))
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
    return model


if __name__ == "__main__":
    trained = main()
