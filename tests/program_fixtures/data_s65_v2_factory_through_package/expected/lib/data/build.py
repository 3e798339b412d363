import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loader(n, batch_size, mode="train", ddp_shard=True):
    is_train = mode == "train"
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, 4, generator=g)
    y = (x[:, 0] + 0.5 * torch.randn(n, generator=g) > 0).long()
    dataset = TensorDataset(x, y)
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else is_train,
        sampler=(
            DdpDistributedSampler(dataset, shuffle=is_train, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )
