"""Synthetic images (16 features) and their keypoints (4 joints, x and y)."""

import torch
from torch.utils.data import Dataset


class KeypointSet(Dataset):
    def __init__(self, count, seed):
        g = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(count, 16, generator=g)
        self.targets = self.inputs[:, :8] * 0.5 + 0.1 * torch.randn(count, 8, generator=g)

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        return self.inputs[index], self.targets[index]
