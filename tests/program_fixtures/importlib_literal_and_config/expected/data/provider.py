import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def init(config):
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 2))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(config["train"]["batchsize"]),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )

    def gen(phase):
        return iter(loader)

    return gen
