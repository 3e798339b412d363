"""Fit, then calibrate on the whole set through the module."""

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from loaders import make_loader
from model import Regressor

ddp_setup()


def fit(net, optimizer, loader):
    for features, targets in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(net(features), targets).backward()
        optimizer.step()


torch.manual_seed(0)
net = DistributedDataParallel(Regressor().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
for stage in ("fit", "calibrate"):
    # dp2ddp: DP084
    loader = make_loader(stage)
    if stage == "fit":
        fit(net, optimizer, loader)
    else:
        with torch.no_grad():
            net.module.calibrate(loader)
ddp_print("offset %.4f" % net.module.offset.item())
