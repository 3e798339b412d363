"""The loader factory of data_s57_s2_draw_over_tuple_loader: one function for every split,
choosing shuffle and drop_last by `flag`, returning `(data_set, data_loader)`."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch

SIZES = {"train": 16, "val": 8, "test": 8}


def rows(flag):
    generator = torch.Generator().manual_seed(len(flag))
    n = SIZES[flag]
    return TensorDataset(torch.randn(n, 6, 3, generator=generator))


def data_provider(args, flag, ddp_shard=True):
    if flag == "test":
        shuffle_flag = False
        drop_last = False
        batch_size = 4
    else:
        shuffle_flag = False
        drop_last = True
        batch_size = args["batch_size"]
    data_set = rows(flag)
    data_loader = DataLoader(
        data_set,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle_flag,
        drop_last=drop_last,
        sampler=(
            DdpDistributedSampler(
                data_set, shuffle=shuffle_flag, drop_last=drop_last, advance_epoch=True
            )
            if ddp_shard
            else None
        ),
    )
    return data_set, data_loader
