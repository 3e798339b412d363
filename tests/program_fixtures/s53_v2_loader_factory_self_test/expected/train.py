import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data import get_test_dataloader, get_train_dataloader

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = get_train_dataloader(4)
val_loader = get_test_dataloader()
for epoch in range(2):
    train_loader.sampler.set_epoch(epoch)
    model.train()
    for x, y in train_loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        mae = 0.0
        for x, y in val_loader:
            mae += (model(x) - y).abs().sum().item()
        mae /= len(val_loader.dataset)
    ddp_print(f"epoch {epoch} mae {mae:.4f}")
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
