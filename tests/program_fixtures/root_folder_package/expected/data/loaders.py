import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def train_loader(batch_size):
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
