import torch
from torch.utils.data import DataLoader, TensorDataset


def make_dataset(n):
    x = torch.arange(n * 4, dtype=torch.float32).view(n, 4) / (n * 4)
    return TensorDataset(x, x.sum(1, keepdim=True))
