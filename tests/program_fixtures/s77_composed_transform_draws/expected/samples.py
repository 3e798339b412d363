"""A dataset calling the transform it is handed, per sample."""

import torch
from torch.utils.data import Dataset


class Rows(Dataset):
    def __init__(self, n, transform):
        self.rows = torch.arange(n * 4, dtype=torch.float32).view(n, 4) / n
        self.transform = transform

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        row = self.transform(self.rows[index])
        return row, row.sum().view(1)
