"""The writer is an attribute made here and used by a subclass in another module
(yassouali/pytorch-segmentation@33434fa, base/base_trainer.py and trainer.py)."""
import os

import torch
from tensorboardX import SummaryWriter
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, DdpNullWriter, ddp_is_main


class BaseTrainer:
    def __init__(self, model, loader, config):
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.loader = loader
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.epochs = config["epochs"]
        # SummaryWriter creates the directory; the subclass writes a log file into it.
        self.writer = (SummaryWriter if ddp_is_main() else DdpNullWriter)(
            os.path.join(config["save_dir"], "runs")
        )

    def train(self):
        for epoch in range(self.epochs):
            self._train_epoch(epoch)
        if ddp_is_main():
            self.writer.close()
