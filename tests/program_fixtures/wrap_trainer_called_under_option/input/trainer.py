import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_loader():
    x = torch.arange(64.0).view(16, 4) / 64
    data = TensorDataset(x, x.sum(1, keepdim=True))
    return DataLoader(data, batch_size=4, shuffle=True)


def wgan_trainer(opt):
    generator = nn.Linear(4, 1)
    if opt.multi_gpu:
        generator = nn.DataParallel(generator)
    optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)
    loader = make_loader()
    for epoch in range(opt.epochs):
        for x, y in loader:
            loss = (generator(x) - y).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print("wgan", generator.module.weight.sum().item())


def lsgan_trainer(opt):
    generator = nn.Linear(4, 1)
    if opt.multi_gpu:
        generator = nn.DataParallel(generator)
    optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)
    loader = make_loader()
    for epoch in range(opt.epochs):
        for x, y in loader:
            loss = ((generator(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print("lsgan", generator.module.weight.sum().item())
