"""Class C1 (KaiyangZhou/pytorch-center-loss's datasets.py layout): a class builds the
loaders as attributes of its instances, `create()` returns one. The training loader is
shuffled, so the migration shards it here; its loops are in train.py, over the attribute."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


class Data(object):
    def __init__(self, batch_size):
        x = torch.arange(32, dtype=torch.float32).view(32, 1) / 8
        data = TensorDataset(x, torch.zeros(32, 1))
        self.trainloader = DataLoader(
            data,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
        )
        # dp2ddp: DP015 evaluation metrics not reduced
        self.testloader = DataLoader(data, batch_size=batch_size, shuffle=False)


def create(batch_size):
    return Data(batch_size)
