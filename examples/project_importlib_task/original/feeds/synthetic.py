"""A synthetic two-class set: points around two centres."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def get_loader(batch_size):
    generator = torch.Generator().manual_seed(1)
    labels = torch.randint(0, 2, (256,), generator=generator)
    points = torch.randn(256, 8, generator=generator) + labels[:, None] * 1.5
    return DataLoader(TensorDataset(points, labels), batch_size=batch_size, shuffle=True)
