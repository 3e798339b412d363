import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from helpers import lr_for

ddp_setup()


model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=lr_for(32))
for epoch in range(2):
    opt.zero_grad()
    model(torch.randn(8, 4)).sum().backward()
    opt.step()
    ddp_print(f"epoch {epoch}")
