import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data_loader import make_loader

ddp_setup()


model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = make_loader(4)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print(epoch, loss.item())

if __name__ == "__main__":
    # the entry's own block runs: its warnings stay
    # dp2ddp: DP018 device index pinned by hand
    ddp_print(torch.zeros(1).to(DEVICE))
