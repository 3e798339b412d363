"""Every split's loader from one factory, the split chosen by boolean flags (class E1); the
training split is shuffled, and taken whole in one batch per epoch (so the migrated run's
weights, whatever its sample order, match the original's and so do the saved answers)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    y = (x[:, 0] + 0.3 * torch.randn(n, generator=g) > 0).long()
    return TensorDataset(x, y, torch.arange(n))


def get_loader(train=False, val=False, test=False, ddp_shard=True):
    assert train + val + test == 1
    split = make_split(32 if train else 16, 0 if train else 1 if val else 2)
    return DataLoader(
        split,
        batch_size=(
            ddp_per_rank_batch(32 if train else 8) if ddp_shard else 32 if train else 8
        ),
        shuffle=None if ddp_shard else train,
        sampler=(
            DdpDistributedSampler(split, shuffle=train, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )
