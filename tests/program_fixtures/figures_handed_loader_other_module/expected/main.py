"""Class v3-A of stop 41 (hengyuan-hu/bottom-up-attention-vqa@3925206's layout): the entry
builds the loader and hands it to train() of train.py, whose epoch figures are sums over the
batches divided by the dataset's size, written by the program's own Logger."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from train import train

ddp_setup()


torch.manual_seed(0)
x = torch.randn(32, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
train_dataset = TensorDataset(x, y)
train_loader = DataLoader(
    train_dataset,
    ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(train_dataset, shuffle=False),
)
figures = train(model, train_loader, 2, "out")
E2E_DIGEST = [round(f, 4) for f in figures]
