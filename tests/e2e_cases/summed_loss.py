"""A VAE-style summed loss (`reduction="sum"` plus a `.sum()` term) printed each epoch: the
migration backpropagates it times WORLD_SIZE, so verify finds DataParallel's updates."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(96, 8, generator=generator)
    loader = DataLoader(TensorDataset(x, x.sin()), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 8))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.002)
    for epoch in range(2):
        for inputs, targets in loader:
            optimizer.zero_grad()
            out = model(inputs)
            loss = F.mse_loss(out, targets, reduction="sum") + 0.01 * out.pow(2).sum()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
