import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(batch_size):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(48, 4, generator=g)
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
