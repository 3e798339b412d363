import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evaluate import validation


def main():
    torch.manual_seed(0)
    train_set = TensorDataset(torch.randn(64, 6), torch.randint(0, 4, (64,)))
    valid_set = TensorDataset(torch.randn(30, 6), torch.randint(0, 4, (30,)))
    train_loader = DataLoader(train_set, batch_size=16, shuffle=False)
    valid_loader = DataLoader(valid_set, batch_size=8, shuffle=True)  # to see progress
    model = nn.DataParallel(nn.Linear(6, 4))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    best_norm = -1.0
    for epoch in range(3):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        valid_loss, accuracy, norm_distance, samples = validation(model, criterion, valid_loader)
        print(
            f"epoch {epoch} valid loss {valid_loss:.6f} accuracy {accuracy:.6f} "
            f"norm {norm_distance:.6f} samples {samples}"
        )
        if norm_distance > best_norm:
            best_norm = norm_distance
            torch.save(model.state_dict(), "best_norm.pth")
    print(f"best norm {best_norm:.6f}")


if __name__ == "__main__":
    main()
