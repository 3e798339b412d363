import os
import shutil

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evalmod import validate

torch.manual_seed(0)
x = torch.randn(32, 4)
y = torch.randn(32, 1)
train_loader = DataLoader(TensorDataset(x, y), batch_size=8)
eval_loader = DataLoader(TensorDataset(x[:10], y[:10]), batch_size=4)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out_dir = "preds_out"
shutil.rmtree(out_dir, ignore_errors=True)
for epoch in range(2):
    for xb, yb in train_loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    validate(model, eval_loader, out_dir, "epoch_" + str(epoch))
total = None
for epoch in range(2):
    cur = np.loadtxt(os.path.join(out_dir, "pred_epoch_" + str(epoch) + ".csv"), delimiter=",")
    total = cur if total is None else total + cur
print("ensemble %.6f" % float(total.sum()))
