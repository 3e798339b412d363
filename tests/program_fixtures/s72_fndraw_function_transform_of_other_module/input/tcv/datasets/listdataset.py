import torch
from torch.utils.data import Dataset


class ListDataset(Dataset):
    def __init__(self, n, transform=None):
        self.x = torch.arange(1, n + 1, dtype=torch.float32).view(n, 1)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform:
            x = self.transform(x)
        return x
