"""The builder of loader_builder_calls_unfollowed, its training call's `shuffle` read from
the trainer's settings (`self.shuffle`), not a literal: the calls do not tell the kinds
apart, so every call's loaders are sharded and DP029 says it (stop 60 s1's control).
"""

import math

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
)


class BaseTrainer:
    def __init__(self, sizes):
        self.sizes = sizes
        self.shuffle = True

    def _set_dataloader(self, n, batch_size, shuffle):
        loaders = {}
        with ddp_same_random():
            for key in ("dataset",):
                data = TensorDataset(torch.randn(n, 4), torch.randn(n, 1))
                # dp2ddp: DP011, DP029
                loaders[key] = DataLoader(
                    data,
                    batch_size=ddp_per_rank_batch(batch_size),
                    sampler=DdpDistributedSampler(
                        data, shuffle=shuffle, advance_epoch=True
                    ),
                )
        return loaders

    def train(self):
        torch.manual_seed(0)
        self.module = {"net": nn.Linear(4, 1)}
        self.train_dataloader = self._set_dataloader(self.sizes[0], 4, self.shuffle)
        self.val_dataloader = self._set_dataloader(self.sizes[1], 1, False)
        self.model = {
            key: DistributedDataParallel(
                self.module[key].to(DEVICE), device_ids=DEVICE_IDS
            )
            for key in self.module
        }
        self.optimizer = torch.optim.SGD(self.module["net"].parameters(), lr=0.1)
        steps = math.ceil(self.sizes[0] / 4)
        for epoch in range(2):
            iters = {key: iter(self.train_dataloader[key]) for key in self.train_dataloader}
            for step in range(steps):
                x, y = next(iters["dataset"])
                loss = nn.functional.mse_loss(self.model["net"](x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.validation(epoch)
