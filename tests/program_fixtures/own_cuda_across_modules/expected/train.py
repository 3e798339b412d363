import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from nce.alias import AliasTable
from nce.bank import Bank

ddp_setup()


sampler = AliasTable(torch.ones(4))
sampler.cuda()
model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
bank = Bank(8, 3).to(DEVICE)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4).to(DEVICE)
for step in range(2):
    opt.zero_grad()
    loss = bank(model(x))
    loss.backward()
    opt.step()
ddp_print(sampler.draw(2).shape)
