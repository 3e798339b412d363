"""Epochs counted by a `while` loop over steps, the loader built by a helper that returns it
in a tuple: there is no epoch loop to call set_epoch in. The migration's sampler advances
its own epoch, so the order changes every epoch as RandomSampler's does."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_loaders():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=generator)
    train = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=16, shuffle=True)
    return train, len(x)


def main():
    train_loader, size = make_loaders()
    model = nn.Linear(4, 1)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    step = 0
    while step < 8:
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            step += 1
    print(f"final step {step} of {size} samples")


if __name__ == "__main__":
    main()
