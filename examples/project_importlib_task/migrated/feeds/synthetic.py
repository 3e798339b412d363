"""A synthetic two-class set: points around two centres."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loader(batch_size):
    generator = torch.Generator().manual_seed(1)
    labels = torch.randint(0, 2, (256,), generator=generator)
    points = torch.randn(256, 8, generator=generator) + labels[:, None] * 1.5
    dataset = TensorDataset(points, labels)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
