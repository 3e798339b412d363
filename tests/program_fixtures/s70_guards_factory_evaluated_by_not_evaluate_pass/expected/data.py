import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def _table(n, seed):
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.randint(0, 20, (n, 5), generator=g), torch.randint(0, 3, (n,), generator=g))


def train_batches():
    dataset = _table(16, 1)
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )


def held_out_batches():
    # dp2ddp: DP015 evaluation metrics not reduced
    return DataLoader(_table(12, 2), batch_size=4, shuffle=False)
