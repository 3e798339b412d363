"""One loader factory, and a function returning the training and the validation loader
it builds (the shape of class v3-H of stop 41)."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def single(n, offset, batch_size, shuffle, ddp_shard=True):
    x = torch.linspace(0, 1, n * 3).reshape(n, 3) + offset
    dataset = TensorDataset(x, x.sum(1, keepdim=True), torch.arange(n))
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle,
        sampler=(
            DdpDistributedSampler(dataset, shuffle=shuffle, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )


def pair(batch_size):
    # dp2ddp: DP015 evaluation metrics not reduced
    return single(8, 0.0, batch_size, True), single(6, 0.5, 2, False, ddp_shard=False)
