"""The data: a DataLoader over synthetic pairs, and its batches numbered."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loader(inputs, targets, batch_size):
    dataset = TensorDataset(inputs, targets)
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )


def numbered_batches(loader):
    return enumerate(loader)
