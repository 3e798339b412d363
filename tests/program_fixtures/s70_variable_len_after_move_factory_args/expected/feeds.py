import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get(args, seed):
    g = torch.Generator().manual_seed(seed)
    data = TensorDataset(
        torch.randn(args.samples, 6, generator=g), torch.randn(args.samples, 2, generator=g)
    )
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(args.batch_size),
        sampler=DdpDistributedSampler(data, shuffle=False),
    ), data
