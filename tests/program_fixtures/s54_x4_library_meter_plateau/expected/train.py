"""The entry: the model, its loader and a plateau scheduler handed to the
Trainer of lib/trainer.py."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup
from lib import Trainer

ddp_setup()


torch.manual_seed(0)
x = torch.arange(64.0).view(16, 4) / 64
y = (x * x).sum(1, keepdim=True)
train_dataset = TensorDataset(x, y)
train_loader = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(train_dataset, shuffle=False),
)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
trainer = Trainer(model, train_loader, optimizer, nn.MSELoss(), scheduler)
trainer.train(2)
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
