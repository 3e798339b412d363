import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loader(opt):
    x = torch.arange(48.0).reshape(12, 4) / 10
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    # dp2ddp: DP184
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(opt.batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
