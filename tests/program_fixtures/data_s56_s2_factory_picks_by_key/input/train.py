"""The epoch function's running mean over the loader a factory looks up by the key "train" is
returned and printed (r3-B): this rank's shard after migration (DP030); the loader looked up
by "dev" stays whole."""
import torch
import torch.nn as nn
from picks_data import fetch


class RunningAverage:
    def __init__(self):
        self.steps = 0
        self.total = 0.0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / float(self.steps)


def train_epoch(model, opt, loader):
    loss_avg = RunningAverage()
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_avg.update(loss.item())
    return loss_avg()


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += nn.functional.mse_loss(model(x), y, reduction="sum").item()
    return total


torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = fetch("train", 16)
dev = fetch("dev", 4)
for epoch in range(2):
    train_loss = train_epoch(model, opt, loader)
    print("train loss %.4f" % train_loss)
    print("dev loss %.4f" % evaluate(model, dev))
print("weights %.4f" % model.module.weight.sum().item())
