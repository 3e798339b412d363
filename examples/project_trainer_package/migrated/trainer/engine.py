import logging

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main

from .data import make_loader

log = logging.getLogger(__name__)


class Trainer:
    """Holds the model, its optimizer and the training loader."""

    def __init__(self, batch_size):
        torch.manual_seed(0)
        self.device = DEVICE
        model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)
        self.loader = make_loader(batch_size)

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for x, y in self.loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        # dp2ddp: DP030 running figure printed from this rank's shard
        return total / len(self.loader)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.loader.sampler.set_epoch(epoch)
            loss = self.train_epoch()
            log.info("epoch %d: mean loss %.4f", epoch, loss)
        return loss

    def save(self, path):
        if ddp_is_main():
            torch.save(self.model.module.state_dict(), path)
