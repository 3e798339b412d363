import logging

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main

from .data import make_loaders

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, batch_size):
        self.device = DEVICE
        model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.train_loader = make_loaders(batch_size)

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        return loss.item()

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_loader.sampler.set_epoch(epoch)
            loss = self.train_epoch()
            if ddp_is_main():
                log.info("epoch %d loss %.4f", epoch, loss)
                print(f"epoch {epoch} loss {loss:.4f}")
        if ddp_is_main():
            torch.save(self.model.module.state_dict(), "trainer.pt")
