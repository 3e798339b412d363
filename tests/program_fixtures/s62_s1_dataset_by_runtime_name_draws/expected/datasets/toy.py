"""A dataset module the entry imports by a name its command line gives: its `__init__`
draws the training split from torch's generator, which the program never seeds."""
import torch
from torch.utils.data import Dataset


class Data(Dataset):
    def __init__(self, n):
        x = torch.arange(n * 4, dtype=torch.float32).reshape(n, 4) / (n * 4)
        keep = torch.randperm(n)[: n // 2]
        self.x = x[keep]
        self.y = self.x.sum(1, keepdim=True).sin()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
