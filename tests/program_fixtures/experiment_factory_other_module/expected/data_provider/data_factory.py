"""The loader factory of experiment_factory_other_module: one function for every split."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch

SIZES = {"train": 16, "val": 8, "test": 8}


def rows(flag):
    generator = torch.Generator().manual_seed(len(flag))
    n = SIZES[flag]
    x = torch.randn(n, 4, generator=generator)
    return TensorDataset(x, x.sum(1, keepdim=True) + torch.randn(n, 1, generator=generator))


def data_provider(args, flag, ddp_shard=True):
    if flag == "test":
        shuffle_flag = False
        batch_size = 4
    else:
        shuffle_flag = args["shuffle"]
        batch_size = args["batch_size"]
    data_set = rows(flag)
    data_loader = DataLoader(
        data_set,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle_flag,
        drop_last=True,
        sampler=(
            DdpDistributedSampler(
                data_set, shuffle=shuffle_flag, drop_last=True, advance_epoch=True
            )
            if ddp_shard
            else None
        ),
    )
    return data_set, data_loader
