"""Barriers only where every rank arrives (issue 10 item 1: a hang in 4 of 5 runs).

- val_loader is shuffled but evaluated: its accuracy must be global before it decides the
  best checkpoint, and save_best()'s barrier is then reached by every rank or none.
- save_last() runs under a condition that differs between ranks once the data is sharded:
  rank 0 gets the even samples (label 0), rank 1 the odd ones (label 1). A barrier inside it
  would leave one rank waiting alone.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x_train = torch.randn(64, 4)
y_train = torch.arange(64) % 2
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=16, shuffle=False)
val_set = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
val_loader = DataLoader(val_set, batch_size=8, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.5)


def validate():
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.size(0)
    return correct / total


def save_best(path):
    torch.save(model.state_dict(), path)


def save_last():
    torch.save(model.state_dict(), "last.pth")


best = -1.0
for epoch in range(3):
    model.train()
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if y.float().mean().item() < 0.75:
            save_last()
    score = validate()
    if score > best:
        best = score
        save_best("best.pth")
model.load_state_dict(torch.load("best.pth"))
print(f"best accuracy {best:.6f}")
