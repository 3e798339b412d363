# A configured value (`margin = args.margin`) handed beside the model's output to another
# module's loss, next to a loader whose batch_size is another attribute of the same `args`
# (validation round 7 of stop 54, v3: tszssong/face.evoLVe.PyTorch@017d57e
# tri_hard_train.py:188, `LOSS(outputs, bLabel, DEVICE, margin)` beside `DataLoader(...,
# batch_size=args.bag_size)`). Both come from `parse_args()`, so the base took `margin` for
# the loader's batch size: DP140 "margin, the global batch_size of train_loader", false.
# The bag size itself, handed under another name (`bag = args.bag_size`), keeps its DP140.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from losses import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--bag_size", type=int, default=4)
parser.add_argument("--margin", type=float, default=0.3)
args = parser.parse_args()
margin = args.margin
bag = args.bag_size
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
train_loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(args.bag_size),
    sampler=DdpDistributedSampler(data, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(3, 2).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for inputs, labels in train_loader:
        outputs = model(inputs)
        # dp2ddp: DP140
        loss = margin_loss(outputs, margin) + split_mean(outputs, bag)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
ddp_print("weights %.4f" % model.module.weight.sum().item())
