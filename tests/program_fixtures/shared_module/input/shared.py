import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build():
    return nn.DataParallel(nn.Linear(3, 1))


def loader():
    g = torch.Generator().manual_seed(4)
    data = TensorDataset(torch.randn(24, 3, generator=g), torch.randn(24, 1, generator=g))
    return DataLoader(data, batch_size=6, shuffle=True)


def fit(model, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = loader()
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        print(f"epoch {epoch}")
