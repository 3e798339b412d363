"""Issue 28, early stopping on a validation figure the data pass cannot tell from training
(real-world: zhouhaoyi/Informer2020@29f2a73, here without `eval()` or `no_grad()` and with a
shuffled validation loader): one factory builds both loaders, `vali()` returns the mean of
the per-batch losses, an EarlyStopping object sets `self.early_stop` from the figure it is
called with, and `if early_stopping.early_stop: break` leaves the epoch loop. Before, the
validation loader was sharded as training data: each rank stopped on its own half, and one
left the training loop while the other waited in (or failed at) the next all-reduce. Its figures
decide the break, so it is an evaluation loader: left whole (ddp_shard=False, DP015)."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
generator = torch.Generator().manual_seed(5)
SETS = {
    "train": TensorDataset(
        torch.randn(16, 4, generator=generator), torch.randn(16, 1, generator=generator)
    ),
    "val": TensorDataset(
        torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)
    ),
}


def get_data(flag):
    return DataLoader(SETS[flag], batch_size=2 if flag == "val" else 4, shuffle=flag == "val")


class EarlyStopping:
    def __init__(self, patience):
        self.patience = patience
        self.counter = 0
        self.best = None
        self.early_stop = False

    def __call__(self, val_loss):
        if self.best is None or val_loss < self.best:
            self.best, self.counter = val_loss, 0
        else:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True


def vali(model, loader, criterion):
    total_loss = []
    for x, y in loader:
        total_loss.append(criterion(model(x), y).item())
    model.train()
    return np.average(total_loss)


train_loader = get_data("train")
vali_loader = get_data("val")
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
criterion = nn.MSELoss()
early_stopping = EarlyStopping(patience=2)
LOSSES, stopped = [], -1
for epoch in range(30):
    for x, y in train_loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    vali_loss = vali(model, vali_loader, criterion)
    LOSSES.append(round(float(vali_loss), 4))
    stopped = epoch
    early_stopping(vali_loss)
    if early_stopping.early_stop:
        break
E2E_DIGEST = [stopped, *LOSSES]
print("final", E2E_DIGEST)
