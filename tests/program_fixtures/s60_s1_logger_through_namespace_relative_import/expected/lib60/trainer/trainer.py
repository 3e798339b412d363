import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
)

from ..util.logger import Logger


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.logger = Logger("log.log")
        with ddp_same_random():
            data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
        self.loader = DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(data, shuffle=False),
        )
        self.model = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self):
        for epoch in range(2):
            for x, y in self.loader:
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            self.logger.info("epoch %d done" % epoch)
        self.logger.info("weights %.4f" % self.model.module.weight.sum().item())
