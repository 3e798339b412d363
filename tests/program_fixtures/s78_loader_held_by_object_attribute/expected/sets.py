"""The program's loaders, built in a module of their own: training and held-out."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def build(batch_size=8):
    rows = torch.randn(40, 5, generator=torch.Generator().manual_seed(2))
    fit = TensorDataset(rows[:32], rows[:32, :1])
    held = TensorDataset(rows[32:], rows[32:, :1])
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    fit_loader = DataLoader(
        fit,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(fit, shuffle=True, advance_epoch=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    held_loader = DataLoader(held, batch_size=batch_size)
    return fit_loader, held_loader, len(fit)
