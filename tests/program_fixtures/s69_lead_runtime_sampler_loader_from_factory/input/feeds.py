import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset


class InOrder(Sampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def make_feed(batch_size, n, sampler=None):
    g = torch.Generator().manual_seed(n)
    data = TensorDataset(torch.randn(n, 6, generator=g), torch.randn(n, 2, generator=g))
    return data, DataLoader(data, batch_size=batch_size, sampler=sampler or InOrder(n))
