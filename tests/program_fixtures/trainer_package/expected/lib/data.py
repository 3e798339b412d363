import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loaders(batch_size):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(48, 4, generator=g)
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
