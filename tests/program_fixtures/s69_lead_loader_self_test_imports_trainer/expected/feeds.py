import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get(n, seed, ddp_shard=True):
    g = torch.Generator().manual_seed(seed)
    data = TensorDataset(torch.randn(n, 6, generator=g), torch.arange(n) % 3)
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4) if ddp_shard else 4,
        sampler=DdpDistributedSampler(data, shuffle=False) if ddp_shard else None,
    ), data


if __name__ == "__main__":  # a self-test of its own, importing the trainer's options
    from trainer import options

    loader, _ = get(8, options()["seed"])
    for x, y in loader:
        print(x.shape)
