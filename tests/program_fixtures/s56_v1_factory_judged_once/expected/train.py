import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import loaders
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from evaluate import evaluate

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = loaders.get_loader("train", 4, shuffle=True)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
total, items = evaluate(model, 4)
ddp_print("evaluated", round(total, 4), "items", round(items, 4))
