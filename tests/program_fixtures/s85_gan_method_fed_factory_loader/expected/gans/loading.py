import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_images(count):
    generator = torch.Generator().manual_seed(7)
    return TensorDataset(torch.randn(count, 6, generator=generator))


def get_data_loader(dataset, batch_size):
    order = torch.Generator().manual_seed(3)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
        generator=order,
    )
