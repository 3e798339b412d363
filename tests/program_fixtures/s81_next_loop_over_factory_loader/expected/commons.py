"""A factory of the training and evaluation loaders: with `split`, both cut from one set by
index samplers (the training one sharded at run time, **ddp_loader_arguments), else a
shuffled training loader (sharded by a DistributedSampler). Whatever branch runs, the
training slot holds a sharded loader (round 33, kampta/PatchVAE@816f4b4 utils/commons.py:
before, the two branches were not taken for one export, and the importer's loops over
the loader were not known to go through this rank's share)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_loader_arguments


def data_loaders(n, split=False, **kwargs):
    generator = torch.Generator().manual_seed(4)
    x = torch.randn(n, 4, generator=generator)
    y = x.sum(1, keepdim=True)
    train = TensorDataset(x, y)
    val = TensorDataset(x[:8], y[:8])
    if split:
        train_sampler = torch.utils.data.sampler.SubsetRandomSampler(list(range(8, n)))
        train_loader = DataLoader(
            **ddp_loader_arguments(dataset=train, sampler=train_sampler, **kwargs)
        )
        # dp2ddp: DP015 evaluation metrics not reduced
        val_loader = DataLoader(val, shuffle=False, **kwargs)
    else:
        # dp2ddp: DP011, DP013
        train_loader = DataLoader(
            train,
            sampler=DdpDistributedSampler(train, shuffle=True, advance_epoch=True),
            **kwargs,
        )
        # dp2ddp: DP015 evaluation metrics not reduced
        val_loader = DataLoader(val, shuffle=False, **kwargs)
    return train_loader, val_loader, (4, 1), 2, None
