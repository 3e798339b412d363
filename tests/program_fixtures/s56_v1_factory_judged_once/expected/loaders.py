"""Stop 56, helper v1, class v1-B (hongjiang-ye/ReID_PCB@9606ffd's utils.getDataLoader):
one loader factory, its `shuffle=` a parameter, called for training in train.py and for two
evaluation sets in evaluate.py, whose loaders are also handed to a helper that indexes their
datasets. Before: each evaluation call got two DP084s, "left unsharded (shuffle=False)" and
"sharded as training data", of which the second was false (the loader stays whole)."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loader(part, batch_size, shuffle=True, ddp_shard=True):
    g = torch.Generator().manual_seed({"train": 1, "gallery": 2, "query": 3}[part])
    data = TensorDataset(torch.randn(8, 4, generator=g), torch.randint(0, 3, (8,), generator=g))
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle,
        sampler=(
            DdpDistributedSampler(data, shuffle=shuffle, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )


def first_items(gallery, query):
    return gallery.dataset[0][0].sum().item() + query.dataset[0][0].sum().item()
