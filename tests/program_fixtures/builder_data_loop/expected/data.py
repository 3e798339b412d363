import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loaders(batch_size):
    g = torch.Generator().manual_seed(0)
    train_set = TensorDataset(torch.randn(64, 8, generator=g), torch.randint(0, 2, (64,), generator=g))
    val_set = TensorDataset(torch.randn(32, 8, generator=g), torch.randint(0, 2, (32,), generator=g))
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = DataLoader(val_set, batch_size=batch_size)
    return train_loader, val_loader
