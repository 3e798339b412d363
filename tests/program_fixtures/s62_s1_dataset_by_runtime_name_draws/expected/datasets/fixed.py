"""A dataset module that draws nothing: no warning names it."""
import torch
from torch.utils.data import Dataset


class Data(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n * 4, dtype=torch.float32).reshape(n, 4) / (n * 4)
        self.y = self.x.sum(1, keepdim=True).cos()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
