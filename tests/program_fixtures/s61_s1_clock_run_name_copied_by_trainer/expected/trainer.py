"""The trainer copies the config's run name into its own attributes and hands them to the
logger that makes the run folder (C-3-Framework trainer.py)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main
from config import cfg
from misc_utils import logger


class Trainer:
    def __init__(self):
        self.exp_name = cfg.EXP_NAME
        self.exp_path = cfg.EXP_PATH
        self.log_txt, _ = logger(self.exp_path, self.exp_name, ".")
        self.net = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=cfg.LR)

    def forward(self):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        for epoch in range(cfg.MAX_EPOCH):
            loss = nn.functional.mse_loss(self.net(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if ddp_is_main():
                with open(self.log_txt, "a") as f:
                    f.write("epoch %d loss %.4f\n" % (epoch, loss.item()))
