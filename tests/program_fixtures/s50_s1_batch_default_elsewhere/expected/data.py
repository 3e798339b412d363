import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loader(opt):
    x = torch.arange(32.0).reshape(8, 4) / 10
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    # dp2ddp: DP133
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(opt.episodeSize),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
