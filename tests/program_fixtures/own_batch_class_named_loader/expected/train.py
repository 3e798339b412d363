"""Batches from `next(it)` of the program's own generator, reaching the model through a
helper chain (`__main__` -> train_and_evaluate() -> train()): each rank must train its half
of every batch, as DataParallel scattered it (class v2-A of stop 40)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_setup, ddp_shard_batch
from batches import DataLoader

ddp_setup()


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 1)

    def forward(self, x, labels=None):
        out = self.lin(x)
        if labels is not None:
            return nn.functional.mse_loss(out, labels)
        return out


def train(model, data_iterator, optimizer, steps):
    model.train()
    for _ in range(steps):
        x, y = next(data_iterator)
        x, y = ddp_shard_batch((x, y), source=data_iterator)
        loss = model(x, labels=y)
        loss = loss.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_and_evaluate(model, loader, data, optimizer):
    for epoch in range(2):
        data_iterator = loader.data_iterator(data, shuffle=True)
        train(model, data_iterator, optimizer, data["size"] // loader.batch_size)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = {
        "x": [[float(i), 1.0] for i in range(16)],
        "y": [[float(i % 3)] for i in range(16)],
        "size": 16,
    }
    seen = []
    tagger = Tagger()
    tagger.register_forward_pre_hook(lambda module, args: seen.append(len(args[0])))
    model = DistributedDataParallel(tagger.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    train_and_evaluate(model, DataLoader(batch_size=4, seed=1), data, optimizer)
    if ddp_is_main():
        print("rows seen", sum(seen))
        print(
            "final weight",
            [round(v, 5) for v in model.module.lin.weight.view(-1).tolist()],
        )
