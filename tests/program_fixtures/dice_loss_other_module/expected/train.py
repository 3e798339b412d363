import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from utils import DiceLoss

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(
    nn.Conv2d(1, 2, 3, padding=1).to(DEVICE), device_ids=DEVICE_IDS
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ce = nn.CrossEntropyLoss()
dice_loss = DiceLoss(2)
with ddp_same_random():
    x = torch.randn(8, 1, 6, 6)
y = (x > 0).long().squeeze(1)
onehot = torch.nn.functional.one_hot(y, 2).permute(0, 3, 1, 2)
dataset = TensorDataset(x, y, onehot)
for xb, yb, ob in DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
):
    outputs = model(xb)
    loss = 0.5 * ce(outputs, yb) + 0.5 * dice_loss(outputs, ob)
    opt.zero_grad()
    loss.backward()
    opt.step()
