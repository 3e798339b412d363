"""Synthetic data: a shuffled training loader and a validation loader."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def _blobs(count, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 3, (count,), generator=g)
    centres = torch.randn(3, 16, generator=g) * 3
    return TensorDataset(centres[labels] + torch.randn(count, 16, generator=g), labels)


def get_loaders(batch_size):
    train_set = _blobs(256, seed=0)
    val_set = _blobs(96, seed=1)
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = DataLoader(val_set, batch_size=batch_size)
    return train_loader, val_loader
