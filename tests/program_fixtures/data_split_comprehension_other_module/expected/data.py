import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def retrieve_dataloaders(batch_size):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(24, 4, generator=g)
    y = x.sum(1, keepdim=True)
    datasets = {"train": TensorDataset(x[:16], y[:16]), "valid": TensorDataset(x[16:20], y[16:20]),
                "test": TensorDataset(x[20:], y[20:])}
    # dp2ddp: DP011, DP084
    dataloaders = {
        split: DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(
                dataset, shuffle=(split == "train"), advance_epoch=True
            ),
        )
        for split, dataset in datasets.items()
    }
    return dataloaders
