"""As project_logger, with nothing to migrate outside the entry: the entry keeps its inline
setup block, which quiets logging because logs.py (not the entry) imports logging.

victoresque/pytorch-template@41dc06f, meliketoy/wide-resnet.pytorch@292b3ed and
kuangliu/pytorch-cifar@49b7aa9, reduced. The entry does not import logging itself.
"""
import time

import torch
import torch.nn as nn

import config as cf
from logs import get_logger, setup_logging
from models import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


setup_logging()
logger = get_logger("train")
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
elapsed = 0.0
for epoch in range(2):
    start = time.time()
    ddp_print("=> Epoch #%d, LR=%.4f" % (epoch, cf.learning_rate(0.1, epoch)))
    cf.set_lr(optimizer, cf.learning_rate(0.1, epoch))
    loss = model(torch.ones(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    logger.info("epoch %d loss %.4f", epoch, loss.item())
    elapsed += time.time() - start
    ddp_print("| Elapsed time : %d:%02d:%02d" % (cf.get_hms(elapsed)))
