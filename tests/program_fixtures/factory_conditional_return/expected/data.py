import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def synthetic(n, seed):
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.randn(n, 8, generator=g), torch.randint(0, 2, (n,), generator=g))


def build(batch_size, with_val=True):
    """One loader, or the training and validation loaders: the return depends on a flag."""
    train_dataset = synthetic(64, 0)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    train_loader = DataLoader(
        train_dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(train_dataset, shuffle=True, advance_epoch=True),
    )
    if not with_val:
        return train_loader
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = DataLoader(synthetic(32, 1), batch_size=batch_size)
    return train_loader, val_loader


def build_by_split(batch_size):
    """Looked up by key: which loader comes out is not told, so no importer sets its epoch."""
    dataset = synthetic(64, 2)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loaders = {
        "train": DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
        ),
    }
    return loaders
