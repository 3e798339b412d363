"""A synthetic regression set that applies the transform it is handed to each sample."""

import torch
from torch.utils.data import Dataset


class Points(Dataset):
    def __init__(self, n, transform=None):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, 4, generator=g)
        self.y = self.x.sum(dim=1, keepdim=True)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.y[i]
