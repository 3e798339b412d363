import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


def train_one_epoch(model, opt, loader):
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return loss.item()


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(8, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, val_loader = data.build(16)
    for epoch in range(3):
        train_loader.sampler.set_epoch(epoch)
        loss = train_one_epoch(model, opt, train_loader)
        correct = evaluate(model, val_loader)
        ddp_print(f"epoch {epoch} loss {loss:.4f} correct {correct}")
    # fine-tune on the training set alone, with smaller batches
    loader = data.build(8, with_val=False)
    for _ in range(2):
        train_one_epoch(model, opt, loader)
    by_split = data.build_by_split(16)
    for _ in range(2):
        train_one_epoch(model, opt, by_split["train"])


if __name__ == "__main__":
    main()
