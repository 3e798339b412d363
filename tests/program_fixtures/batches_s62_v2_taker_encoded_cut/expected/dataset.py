import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


class BalancedBatches:
    """One loader per part of the data; a batch is one batch of each, concatenated."""

    def __init__(self, opt):
        g = torch.Generator().manual_seed(1)
        self.loaders = []
        self.iterators = []
        for n in opt.parts:
            words = torch.randint(opt.classes, (n, opt.length), generator=g)
            data = TensorDataset(torch.randn(n, 4, generator=g), words)
            # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
            loader = DataLoader(
                data,
                batch_size=ddp_per_rank_batch(opt.batch_size),
                sampler=DdpDistributedSampler(
                    data, shuffle=True, advance_epoch=True, rebuilt="dataset.py:15"
                ),
            )
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
