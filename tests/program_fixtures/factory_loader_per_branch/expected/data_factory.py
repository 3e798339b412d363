"""Class v3-B of stop 41 (thuml/Time-Series-Library@4e938a1's data_provider): one DataLoader
per branch of the factory, each branch returning `data_set, data_loader`."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print


def data_provider(args, flag, ddp_shard=True):
    g = torch.Generator().manual_seed(0 if flag == "train" else 1)
    x = torch.randn({"train": 8, "val": 16}.get(flag, 12), 6, generator=g)
    data_set = TensorDataset(x, x.sum(1, keepdim=True))
    shuffle_flag = False if flag == "test" else True
    if args.task_name == "classification":
        data_loader = DataLoader(
            data_set,
            batch_size=(
                ddp_per_rank_batch(args.batch_size) if ddp_shard else args.batch_size
            ),
            shuffle=None if ddp_shard else shuffle_flag,
            collate_fn=lambda b: torch.utils.data.default_collate(b),
            sampler=(
                DdpDistributedSampler(
                    data_set, shuffle=shuffle_flag, advance_epoch=True
                )
                if ddp_shard
                else None
            ),
        )
        return data_set, data_loader
    else:
        ddp_print(flag, len(data_set))
        data_loader = DataLoader(
            data_set,
            batch_size=(
                ddp_per_rank_batch(args.batch_size) if ddp_shard else args.batch_size
            ),
            shuffle=None if ddp_shard else shuffle_flag,
            sampler=(
                DdpDistributedSampler(
                    data_set, shuffle=shuffle_flag, advance_epoch=True
                )
                if ddp_shard
                else None
            ),
        )
        return data_set, data_loader
