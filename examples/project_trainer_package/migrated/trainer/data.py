import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loader(batch_size):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(192, 8, generator=g)
    y = x @ torch.linspace(-1, 1, 8).unsqueeze(1) + 0.1 * torch.randn(192, 1, generator=g)
    dataset = TensorDataset(x, y)
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
