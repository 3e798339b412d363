import torch
import torch.nn as nn


class Average:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / self.count


class Trainer:
    """The loaders arrive as a dict built in data.py and kept on self (the shape of
    wolny/pytorch-3dunet@a33e2c7), or as a parameter the entry passes (the shape of
    datawhalechina/torch-rechub@5a73b2e): no binding of this module says what they are."""

    def __init__(self, model, loaders):
        self.model = nn.DataParallel(model)
        self.loaders = loaders
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss

    def train(self):
        total = 0.0
        for x, y in self.loaders["train"]:
            loss = self.step(x, y)
            total += loss.item() * x.size(0)
        n = len(self.loaders["train"].dataset)
        print(f"train loss {total / n:.4f}")

    def fit_epoch(self, data_loader):
        meter = Average()
        for x, y in data_loader:
            loss = self.step(x, y)
            meter.update(loss.item(), x.size(0))
        print(f"fit loss {meter.avg:.4f}")
