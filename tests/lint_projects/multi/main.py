"""Entry: train the model of model.py on the loaders of data.py."""

import torch
import torch.nn as nn

from data import get_loaders
from model import build_model


def main() -> None:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, val_loader = get_loaders(batch_size=32)
    model = build_model(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(2):
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
        print(f"epoch {epoch}: accuracy {correct / len(val_loader.dataset):.3f}")
    torch.save(model.module.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
