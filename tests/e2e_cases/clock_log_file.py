"""Fresh round stop 30, class L1 (daa233/generative-inpainting-pytorch@c6cdaea): a log file
named by the clock to the microsecond in a helper, opened by a FileHandler on every rank.
Before: one log file per rank. Now rank 0's reading names it on every rank: one file."""

import datetime
import logging
import os

import torch
from torch import nn


def stamp():
    return str(datetime.datetime.now()).replace(" ", "").replace(":", "").replace(".", "")


def get_logger(log_dir):
    logger = logging.getLogger("clock_log_file")
    logger.addHandler(logging.FileHandler(os.path.join(log_dir, stamp() + ".log")))
    logger.setLevel(logging.INFO)
    return logger


os.makedirs("logs", exist_ok=True)
logger = get_logger("logs")
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(8, 4)
for epoch in range(2):
    optimizer.zero_grad()
    model(data).pow(2).mean().backward()
    optimizer.step()
    logger.info("epoch %d", epoch)
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.module.parameters()]
