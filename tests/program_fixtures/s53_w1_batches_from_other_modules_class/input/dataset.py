import torch
from torch.utils.data import DataLoader, TensorDataset


class BalancedBatches:
    """One loader per part of the data; a batch is one batch of each, concatenated."""

    def __init__(self, parts, batch_size):
        g = torch.Generator().manual_seed(1)
        self.loaders = []
        self.iterators = []
        for n in parts:
            data = TensorDataset(torch.randn(n, 4, generator=g), torch.randn(n, 1, generator=g))
            loader = DataLoader(data, batch_size=batch_size, shuffle=True)
            self.loaders.append(loader)
            self.iterators.append(iter(loader))

    def get_batch(self):
        xs, ys = [], []
        for i, it in enumerate(self.iterators):
            try:
                x, y = next(it)
            except StopIteration:
                self.iterators[i] = iter(self.loaders[i])
                x, y = next(self.iterators[i])
            xs.append(x)
            ys.append(y)
        return torch.cat(xs, 0), torch.cat(ys, 0)
