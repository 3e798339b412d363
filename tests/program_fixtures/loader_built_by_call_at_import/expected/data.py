"""Pattern: ehoogeboom/e3_diffusion_for_molecules@fce07d7's qm9/dataset.py (class v3-A, stop
44). A function builds the loaders, a dict keyed by split, the training one shuffled; the
entry calls it at module level."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loaders(batch_size):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 3, generator=g)
    y = x.sum(1, keepdim=True)
    sets = {"train": TensorDataset(x, y), "test": TensorDataset(x[:4], y[:4])}
    # dp2ddp: DP011, DP084
    return {
        split: DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(
                dataset, shuffle=(split == "train"), advance_epoch=True
            ),
        )
        for split, dataset in sets.items()
    }
