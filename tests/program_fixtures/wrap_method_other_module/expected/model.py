"""DrQA's DocReader shape (facebookresearch/DrQA@6d7c1b7, reader/model.py): the network
owned by a plain class, wrapped by its parallelize() method."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Reader:
    def __init__(self):
        self.network = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=0.1)

    def parallelize(self):
        self.network = DistributedDataParallel(
            self.network.to(DEVICE), device_ids=DEVICE_IDS
        )

    def update(self, x):
        loss = self.network(x).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
