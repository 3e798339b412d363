import argparse

import torch

from _dp2ddp import ddp_is_main, ddp_print, ddp_setup
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
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = build_model()
    train_loader, val_loader = get_loaders(16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        ddp_print(
            f"epoch {epoch} loss {loss.item():.4f} acc "
            f"{evaluate(model, val_loader, device):.3f}"
        )
    if ddp_is_main():
        torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
