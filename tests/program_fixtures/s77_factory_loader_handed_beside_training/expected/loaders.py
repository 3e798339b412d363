"""One factory for both stages: batches to train on, or the whole set as one batch."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch

FEATURES = torch.randn(24, 6, generator=torch.Generator().manual_seed(3))
TARGETS = FEATURES[:, :1] * 2.0


def make_loader(stage):
    data = TensorDataset(FEATURES, TARGETS)
    if stage == "fit":
        # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
        return DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
        )
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(len(data)),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
