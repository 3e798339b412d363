# The shape of aaron-xichen/pytorch-playground@5d47629 mnist/dataset.py: a factory that
# returns one loader or a list of two, a dataset built inline, **kwargs passed through.
import torch
from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print
from torch.utils.data import TensorDataset


def synthetic(n, seed):
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.randn(n, 8, generator=g), torch.randint(0, 2, (n,), generator=g))


def get(batch_size, n_train=64, n_test=32, train=True, val=True, **kwargs):
    kwargs.pop('input_size', None)
    num_workers = kwargs.setdefault('num_workers', 0)
    ddp_print("Building the data loaders with {} workers".format(num_workers))
    ds = []
    if train:
        train_dataset = synthetic(n_train, 0)
        train_loader = torch.utils.data.DataLoader(
            train_dataset,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(
                train_dataset, shuffle=True, advance_epoch=True
            ),
            **kwargs,
        )
        ds.append(train_loader)
    if val:
        # dp2ddp: DP015 evaluation metrics not reduced
        test_loader = torch.utils.data.DataLoader(
            synthetic(n_test, 1),
            batch_size=batch_size, shuffle=True, **kwargs)
        ds.append(test_loader)
    ds = ds[0] if len(ds) == 1 else ds
    return ds
