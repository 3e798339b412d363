"""A DataParallel program whose epoch loss, returned by its training function, steps a
ReduceLROnPlateau (round 21's class): migrated, each rank steps it on its own share's
figure (DP090), the ranks set different rates after the steps verify compares, and end
apart. Even rows have large targets, so the two shares' losses differ."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Running:
    def __init__(self):
        self.seen = []

    def add(self, loss):
        self.seen.append(loss.item())

    def mean(self):
        return sum(self.seen) / len(self.seen)


def train(loader, model, optimizer):
    running = Running()
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running.add(loss)
    return running.mean()


torch.manual_seed(0)
x = torch.randn(16, 4)
y = (torch.arange(16) % 2 == 0).float().unsqueeze(1) * 5.0
loader = DataLoader(TensorDataset(x, y), batch_size=4)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(
    optimizer, factor=0.5, patience=0, threshold=0.5
)
for _epoch in range(4):
    plateau.step(train(loader, model, optimizer))
