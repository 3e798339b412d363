"""The program's one loader factory: ordered unless told to shuffle."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def build_loader(rows, size, shuffle=False, ddp_shard=True):
    draw = torch.Generator().manual_seed(rows)
    table = TensorDataset(torch.randn(rows, 6, generator=draw), torch.randint(0, 3, (rows,), generator=draw))
    return DataLoader(
        table,
        batch_size=ddp_per_rank_batch(size) if ddp_shard else size,
        shuffle=None if ddp_shard else shuffle,
        sampler=(
            DdpDistributedSampler(table, shuffle=shuffle, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )
