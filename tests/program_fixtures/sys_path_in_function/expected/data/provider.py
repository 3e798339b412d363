"""pytorch_stacked_hourglass's data/MPII/dp.py: the folder goes on sys.path inside init(),
then its sibling is imported by its bare name."""

import os
import sys

import torch

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def init(batch_size):
    current_path = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(current_path)
    import ref as ds

    with ddp_same_random():
        dataset = ds.load()
    return torch.utils.data.DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
