import torch
import torch.nn as nn
from losses import build_criterion, Trainer
from torch.nn.parallel import DistributedDataParallel
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup


ddp_setup()


model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
criterion = build_criterion()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
trainer = Trainer(model)
for step in range(2):
    x, y = torch.ones(8, 4), torch.zeros(8, dtype=torch.long)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    trainer.step(x, y, optimizer)
