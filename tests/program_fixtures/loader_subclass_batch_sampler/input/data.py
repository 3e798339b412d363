"""Pattern: gentaiscool/end2end-asr-pytorch@2f78c6b (class Q3). A DataLoader subclass that
sets its collate_fn and forwards everything else, and a batch sampler of fixed bins; train.py
builds the training loader from both with batch_sampler= (no shuffle=)."""

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.sampler import Sampler


def _collate(batch):
    return torch.stack([x for x, _ in batch]), torch.stack([y for _, y in batch])


class AudioLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.collate_fn = _collate


class BucketSampler(Sampler):
    def __init__(self, data_source, batch_size=1):
        super().__init__()
        ids = list(range(len(data_source)))
        self.bins = [ids[i : i + batch_size] for i in range(0, len(ids), batch_size)]

    def __iter__(self):
        for ids in self.bins:
            np.random.shuffle(ids)
            yield ids

    def __len__(self):
        return len(self.bins)

    def shuffle(self, epoch):
        np.random.shuffle(self.bins)


def make_set(size):
    return TensorDataset(torch.randn(size, 4), torch.randn(size, 2))
