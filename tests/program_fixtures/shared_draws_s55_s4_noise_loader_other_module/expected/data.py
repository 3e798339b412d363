import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def make_loader():
    with ddp_same_random():
        images = TensorDataset(torch.randn(16, 3), torch.zeros(16))
    return DataLoader(
        images,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(images, shuffle=False),
    )
