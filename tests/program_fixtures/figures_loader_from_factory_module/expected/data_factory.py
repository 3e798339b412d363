"""The loader factory of an experiment framework (PatchTST, Informer): `data_provider(flag)`
returns (dataset, loader). The training loader is shuffled, so the migration shards it here;
the loops over it are in train.py, as over `shared_loader`, bound at the module's top level."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def data_provider(flag):
    shuffle_flag = flag != "test"
    x = torch.arange(32, dtype=torch.float32).view(32, 1) / 8
    data_set = TensorDataset(x, torch.zeros(32, 1))
    data_loader = DataLoader(
        data_set,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(
            data_set, shuffle=shuffle_flag, drop_last=True, advance_epoch=True
        ),
        drop_last=True,
    )
    return data_set, data_loader


shared_set, shared_loader = data_provider("train")
