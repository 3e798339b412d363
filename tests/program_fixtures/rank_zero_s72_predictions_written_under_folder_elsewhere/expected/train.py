import os
import shutil

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from evalmod import validate

ddp_setup()


torch.manual_seed(0)
x = torch.randn(32, 4)
y = torch.randn(32, 1)
train_dataset = TensorDataset(x, y)
train_loader = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(train_dataset, shuffle=False),
)
# dp2ddp: DP015 evaluation metrics not reduced
eval_loader = DataLoader(TensorDataset(x[:10], y[:10]), batch_size=4)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out_dir = "preds_out"
if ddp_is_main():
    shutil.rmtree(out_dir, ignore_errors=True)
for epoch in range(2):
    for xb, yb in train_loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    validate(model, eval_loader, out_dir, "epoch_" + str(epoch))
ddp_barrier()
total = None
for epoch in range(2):
    cur = np.loadtxt(os.path.join(out_dir, "pred_epoch_" + str(epoch) + ".csv"), delimiter=",")
    total = cur if total is None else total + cur
ddp_print("ensemble %.6f" % float(total.sum()))
