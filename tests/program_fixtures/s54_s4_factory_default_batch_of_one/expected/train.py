import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from loaders import get_train_loader

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--train-batch", type=int, default=4)
args = parser.parse_args()

torch.manual_seed(0)
data = (torch.randn(16, 4), torch.randn(16, 1))
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = get_train_loader(data, batch_size=args.train_batch)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
ddp_print("weights %.4f" % model.module.weight.sum().item())
