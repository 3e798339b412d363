"""The loader factory of class v1-F (stop 39, BangLiu/QANet-PyTorch@0ce11ca's
data_loader/SQuAD.py): one function builds the training and the evaluation loaders."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_loader(x, y, batch_size, shuffle=True, ddp_shard=True):
    dataset = TensorDataset(x, y, torch.arange(len(x)))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle,
        sampler=(
            DdpDistributedSampler(dataset, shuffle=shuffle, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )
