import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DEVICE, DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def make_loader(batch_size):
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )


if __name__ == "__main__":
    # a self-test of this module: torchrun runs train.py, never this block
    with ddp_same_random():
        loader = DataLoader(TensorDataset(torch.randn(4, 4)), batch_size=1)
    for (x,) in loader:
        print(x.to(DEVICE).shape)
