"""Train the classifier of models.py on the loaders of data.py."""

import argparse

import torch

from _dp2ddp import DEVICE, ddp_is_main, ddp_print, ddp_setup
from data import get_loaders
from models import build_model


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    torch.manual_seed(0)
    device = DEVICE
    model = build_model(device)
    train_loader, val_loader = get_loaders(args.batch_size)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        accuracy = evaluate(model, val_loader, device)
        ddp_print(f"epoch {epoch}: loss {loss.item():.4f} val accuracy {accuracy:.3f}")
    if ddp_is_main():
        torch.save(model.state_dict(), "classifier.pt")
        print(f"final val accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
