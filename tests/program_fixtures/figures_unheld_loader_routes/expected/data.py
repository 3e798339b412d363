import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loaders(n):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 4, generator=g)
    y = torch.randn(n, 1, generator=g)
    dataset = TensorDataset(x, y)
    # dp2ddp: DP011, DP015
    return {
        "train": DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
        ),
        "val": DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False),
    }
