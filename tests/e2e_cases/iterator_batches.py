"""Batches from an iterator class of the script's own, no DataLoader: DataParallel split
each (x, y) batch over the GPUs, so DDP's ranks must take their part of every batch."""

import torch
import torch.nn as nn


class BatchIterator:
    """Yields (inputs, targets) batches of two tensors, in order."""

    def __init__(self, x, y, batch_size):
        self.x, self.y, self.batch_size = x, y, batch_size

    def __iter__(self):
        for start in range(0, len(self.x), self.batch_size):
            end = start + self.batch_size
            yield self.x[start:end], self.y[start:end]


def main():
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(48, 4, generator=generator)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    batches = BatchIterator(x, y, 8)
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        for inputs, targets in batches:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
