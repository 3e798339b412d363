import logging
import os

import torch

from _dp2ddp import ddp_is_main
from base import BaseTrainer
from logutil import log_weights


class Trainer(BaseTrainer):
    def __init__(self, model, loader, config):
        super().__init__(model, loader, config)
        self.log_dir = self.writer.file_writer.get_logdir()
        self.logger = logging.getLogger("trainer")
        self.logger.setLevel(logging.INFO)
        self.logger.addHandler(logging.FileHandler(os.path.join(self.writer.log_dir, "train.log")))

    def _train_epoch(self, epoch):
        self.model.train()
        total = 0.0
        for step, (x, y) in enumerate(self.loader):
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.writer.add_scalar("train/loss", loss.item(), epoch * 100 + step)
            total += loss.item()
        if self.writer is not None:
            # dp2ddp: DP030 running figure printed from this rank's shard
            self.writer.add_scalar("train/epoch_loss", total, epoch)
        if self.writer:
            log_weights(self.writer, self.model, epoch)
        if ddp_is_main():
            self.logger.info("epoch %d", epoch)
            print("epoch", epoch, "logs in", self.log_dir)
