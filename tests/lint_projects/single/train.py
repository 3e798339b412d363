"""Train a small classifier on synthetic data with DataParallel."""

import argparse
import logging

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def __init__(self, features: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, classes)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = torch.randn(256, 16)
    labels = torch.randint(0, 3, (256,))
    train_loader = DataLoader(
        TensorDataset(features, labels), batch_size=32, shuffle=True, drop_last=True
    )
    model = Net().to(device)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)  # every visible GPU
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        total = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(
            f"epoch {epoch}: training loss {total / len(train_loader):.4f} (this epoch)"
        )
        logger.info("epoch %d done", epoch)
    torch.save(model.module.state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
