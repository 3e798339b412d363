# The pair is unpacked onto a trainer object; which item trains is read from its loops here.
import numpy as np
import torch
import torch.nn as nn
from loaders import split_loaders
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


class Runner:
    def __init__(self):
        torch.manual_seed(3)
        rows = torch.randn(48, 4)
        weights = torch.tensor([[1.0], [-2.0], [0.5], [0.0]])
        targets = rows @ weights + 0.05 * torch.arange(48.0).unsqueeze(1)
        self.fit_loader, self.check_loader = split_loaders(rows, targets, 16, 8)
        self.net = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def run(self, epochs):
        for epoch in range(epochs):
            self.fit_loader.sampler.set_epoch(epoch)
            self.net.train()
            for xb, yb in self.fit_loader:
                loss = ((self.net(xb) - yb) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.net.eval()
            errors = []
            with torch.no_grad():
                for xb, yb in self.check_loader:
                    errors.append(((self.net(xb) - yb) ** 2).mean().item())
            ddp_print("epoch %d held-out mse %.4f" % (epoch, np.mean(errors)))


if __name__ == "__main__":
    Runner().run(2)
