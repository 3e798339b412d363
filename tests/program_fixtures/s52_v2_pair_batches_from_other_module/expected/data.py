import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset

from _dp2ddp import DdpBatchShard, ddp_same_random


class PairBatchSampler(Sampler):
    """Each batch: `batch_size` samples, then one partner of each, in that order."""

    def __init__(self, size, batch_size):
        self.size = size
        self.batch_size = batch_size

    def __iter__(self):
        for start in range(0, self.size, self.batch_size):
            batch = list(range(start, start + self.batch_size))
            yield batch + [(i + 1) % self.size for i in batch]

    def __len__(self):
        return self.size // self.batch_size


def load_dataset(batch_size):
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
    loader = DataLoader(
        data, batch_sampler=DdpBatchShard(PairBatchSampler(16, batch_size))
    )
    return loader, len(data)
