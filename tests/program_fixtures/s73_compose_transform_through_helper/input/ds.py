import torch
from torch.utils.data import Dataset


class Ones(Dataset):
    def __init__(self, n, transform=None):
        self.n = n
        self.transform = transform

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = torch.ones(1)
        if self.transform is not None:
            x = self.transform(x)
        return x
