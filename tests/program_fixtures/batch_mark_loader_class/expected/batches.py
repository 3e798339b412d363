"""The program's own loader class (v2-B of stop 42, the shape of ImageCaptioning.pytorch's
DataLoader/MySampler): a sampler that is its own endless iterator, marking the item where
it wraps; the collate function ORs the marks into the batch; get_batch() takes the batch by
next(); state_dict() reads the sampler's position back through the loader (DP104)."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from _dp2ddp import DdpSamplerShard, ddp_per_rank_batch


class Rows(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, item):
        index, wrapped = item
        x = torch.full((3,), float(index) / 8)
        return x, x.sum(0, keepdim=True), wrapped


def collate(items):
    return {
        "x": torch.stack([x for x, _, _ in items]),
        "y": torch.stack([y for _, y, _ in items]),
        "bounds": {"wrapped": any(w for _, _, w in items)},
    }


class Wrapping(Sampler):
    def __init__(self, n):
        self.n = n
        self.reset()

    def reset(self):
        self.order, self.position = [int(i) for i in np.random.permutation(self.n)], 0

    def __iter__(self):
        return self

    def __next__(self):
        wrapped = self.position == self.n
        if wrapped:
            self.reset()
        self.position += 1
        return self.order[self.position - 1], wrapped

    def __len__(self):
        return self.n

    def state_dict(self):
        return {"order": self.order, "position": self.position}


class Batches:
    def __init__(self, batch_size):
        self.loader = DataLoader(
            Rows(),
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpSamplerShard(Wrapping(8), ddp_per_rank_batch(batch_size)),
            collate_fn=collate,
        )
        self.it = iter(self.loader)

    def get_batch(self):
        try:
            data = next(self.it)
        except StopIteration:
            self.it = iter(self.loader)
            data = next(self.it)
        return data

    def state_dict(self):
        # dp2ddp: DP104
        return self.loader.sampler.state_dict()
