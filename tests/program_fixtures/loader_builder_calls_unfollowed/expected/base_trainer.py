"""A trainer whose one builder method makes the training, validation and test loaders.

adntjr4/denoising_practice@b53363d src/trainer/basic_trainer.py (stop 59, v1-B): the
loaders come back in a dict kept on `self`, training draws them with `next()` of iterators
kept in another dict, and validation iterates them in a subclass of another module: no loop
over the builder's loader is followed. The calls tell the kinds apart (stop 60 s1): the
builder hands its `shuffle` parameter to the DataLoader, the training call passes True, the
validation call False: the validation loader is built whole (ddp_shard=False, DP015), the
training one sharded (before: every call's loaders sharded, DP029).
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

    def _set_dataloader(self, n, batch_size, shuffle, ddp_shard=True):
        loaders = {}
        with ddp_same_random():
            for key in ("dataset",):
                data = TensorDataset(torch.randn(n, 4), torch.randn(n, 1))
                # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
                loaders[key] = DataLoader(
                    data,
                    batch_size=(
                        ddp_per_rank_batch(batch_size) if ddp_shard else batch_size
                    ),
                    shuffle=None if ddp_shard else shuffle,
                    sampler=(
                        DdpDistributedSampler(data, shuffle=shuffle, advance_epoch=True)
                        if ddp_shard
                        else None
                    ),
                )
        return loaders

    def train(self):
        torch.manual_seed(0)
        self.module = {"net": nn.Linear(4, 1)}
        self.train_dataloader = self._set_dataloader(self.sizes[0], 4, True)
        # dp2ddp: DP015 evaluation metrics not reduced
        self.val_dataloader = self._set_dataloader(
            self.sizes[1], 1, False, ddp_shard=False
        )
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
