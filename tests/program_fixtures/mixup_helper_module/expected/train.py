"""Mixup and CutMix drawn by helpers of other modules inside the training loop (the shape
of hongyi-zhang/Fixup@f3fa449 cifar/cifar_train.py with cifar/utils.py)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import augment
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from utils import make_data, mixup_data, seed_all

ddp_setup()


seed_all(0)
data, target = make_data()
model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    seed_all(step)
    mixed, y_a, y_b, lam = mixup_data(data, target, 1.0)
    mixed = augment.cutmix(mixed)
    output = model(mixed)
    loss = lam * (output - y_a).pow(2).mean() + (1 - lam) * (output - y_b).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
