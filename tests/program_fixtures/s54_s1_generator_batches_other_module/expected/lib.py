import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_iter(batch_size):
    features = torch.arange(16, dtype=torch.float32).view(8, 2) / 8
    data = TensorDataset(features, torch.arange(8) % 3)
    # dp2ddp: DP074 a generator's loader batches not followed to their use
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    while True:
        for x, label in loader:
            yield x, label
