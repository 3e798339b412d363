"""One loader per task built inline in a list comprehension (class r4-D of stop 55, DyAd's
encoder_train.py): dp2ddp cannot shard them (DP020), so every rank trains on every whole
batch and the printed mean is the original's: no DP030 (before: DP030 said it was this
rank's batches only)."""
import numpy as np
import torch
import torch.nn as nn
from tasks_data import TaskData, report
from torch.utils import data

torch.manual_seed(0)
train_loaders = [
    (task, data.DataLoader(TaskData(task, 8), batch_size=4, shuffle=True)) for task in range(2)
]
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    train_losses = []
    for task, data_loader in train_loaders:
        for x, y in data_loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            train_losses.append(loss.item())
    report(epoch, np.mean(train_losses))
print("weights %.4f" % model.module.weight.sum().item())
