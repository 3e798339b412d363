import torch
from torch import nn

from lib.data import make_loader


def evaluate(model, loader):
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    train_loader = make_loader(16, 16, mode="train")
    val_loader = make_loader(12, 4, mode="val")
    for epoch in range(2):
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("epoch", epoch, "val acc %.4f" % evaluate(model, val_loader))
    print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
