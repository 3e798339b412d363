import torch
from torch.utils.data import DataLoader, TensorDataset


class BalancedBatches:
    """One loader per part of the data; a batch is one batch of each, concatenated."""

    def __init__(self, opt):
        g = torch.Generator().manual_seed(1)
        self.loaders = []
        self.iterators = []
        for n in opt.parts:
            words = torch.randint(opt.classes, (n, opt.length), generator=g)
            data = TensorDataset(torch.randn(n, 4, generator=g), words)
            loader = DataLoader(data, batch_size=opt.batch_size, shuffle=True)
            self.loaders.append(loader)
            self.iterators.append(iter(loader))

    def get_batch(self):
        images, labels = [], []
        for i, it in enumerate(self.iterators):
            try:
                x, y = next(it)
            except StopIteration:
                self.iterators[i] = iter(self.loaders[i])
                x, y = next(self.iterators[i])
            images.append(x)
            labels += y.tolist()
        return torch.cat(images, 0), labels
