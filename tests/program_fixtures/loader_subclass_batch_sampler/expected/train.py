import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data import AudioLoader, BucketSampler, make_set

ddp_setup()


train_set = make_set(32)
train_sampler = BucketSampler(train_set, batch_size=8)
train_loader = AudioLoader(train_set, num_workers=0, batch_sampler=train_sampler)
valid_loader = AudioLoader(make_set(16), num_workers=0, batch_size=8)
model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in train_loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    train_sampler.shuffle(epoch)
    with torch.no_grad():
        total = sum(nn.functional.mse_loss(model(x), y, reduction="sum") for x, y in valid_loader)
    ddp_print(f"epoch {epoch} valid loss {total.item() / 16:.4f}")
