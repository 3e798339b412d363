"""The entry: the model, its loader and a plateau scheduler handed to the
Trainer of lib/trainer.py."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from lib import Trainer

torch.manual_seed(0)
x = torch.arange(64.0).view(16, 4) / 64
y = (x * x).sum(1, keepdim=True)
train_loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
trainer = Trainer(model, train_loader, optimizer, nn.MSELoss(), scheduler)
trainer.train(2)
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
