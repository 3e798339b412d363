"""Every term of a printed figure reduced, or none (issue 10 item 4).

The loss sum is divided by len(test_loader) (batches); the accuracy by the dataset size; an
averaging object feeds a third figure. Under torchrun the printed numbers must be the ones
plain python prints.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train_set = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
test_set = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
test_loader = DataLoader(test_set, batch_size=16, shuffle=False)
meter_loader = DataLoader(test_set, batch_size=16, shuffle=False)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the figures must match exactly


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n


def test():
    model.eval()
    loss_avg, correct = 0.0, 0
    with torch.no_grad():
        for x, y in test_loader:
            out = model(x)
            loss_avg += float(F.cross_entropy(out, y))
            correct += (out.argmax(1) == y).sum().item()
    print(
        f"test loss {loss_avg / len(test_loader):.6f} acc {correct / len(test_loader.dataset):.6f}"
    )


def meter_accuracy():
    top1 = AverageMeter()
    with torch.no_grad():
        for x, y in meter_loader:
            top1.update((model(x).argmax(1) == y).float().mean().item(), x.size(0))
    print(f"meter acc {top1.sum / top1.count:.6f} over {top1.count}")


for epoch in range(1):
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    test()
    meter_accuracy()
