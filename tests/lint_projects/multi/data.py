"""Synthetic data: a shuffled training loader and a validation loader."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def _blobs(count: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 3, (count,), generator=g)
    return TensorDataset(torch.randn(count, 16, generator=g), labels)


def get_loaders(batch_size: int) -> tuple[DataLoader, DataLoader]:
    train_loader = DataLoader(_blobs(256, 0), batch_size=batch_size, shuffle=True)
    val_loader = DataLoader(_blobs(96, 1), batch_size=batch_size)
    return train_loader, val_loader
