"""Loaders built by one helper, and a fetcher whose __next__ pulls its loader's next batch
(class S7: stargan-v2's InputFetcher), for a trainer in another module."""

from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def get_loader(dataset, batch_size, shuffle=True):
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(
            dataset, shuffle=shuffle, drop_last=True, advance_epoch=True
        ),
        drop_last=True,
    )


class Fetcher:
    def __init__(self, loader, loader_ref=None, latent_dim=4):
        self.loader = loader
        self.loader_ref = loader_ref
        self.latent_dim = latent_dim

    def _fetch(self):
        try:
            x, y = next(self.iter)
        except (AttributeError, StopIteration):
            self.iter = iter(self.loader)
            x, y = next(self.iter)
        return x, y

    def _fetch_refs(self):
        try:
            x, y = next(self.iter_ref)
        except (AttributeError, StopIteration):
            self.iter_ref = iter(self.loader_ref)
            x, y = next(self.iter_ref)
        return x, y

    def __next__(self):
        x, y = self._fetch()
        if self.loader_ref is not None:
            x_ref, _ = self._fetch_refs()
            return {"x": x, "y": y, "x_ref": x_ref}
        return {"x": x, "y": y}


class Numbered:
    """Its __next__ hands out a counter, not its loader's batches: not proved."""

    def __init__(self, loader):
        self.loader = loader
        self.count = 0

    def __next__(self):
        self.count += 1
        return next(self.numbers())

    def numbers(self):
        yield self.count


def datasets(n):
    import torch

    with ddp_same_random():
        return TensorDataset(torch.randn(n, 3), torch.randn(n, 1))
