import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print

__all__ = ["make_data", "loader_for", "report"]


def make_data():
    g = torch.Generator().manual_seed(3)
    return TensorDataset(torch.randn(32, 5, generator=g), torch.randn(32, 1, generator=g))


def loader_for(dataset, batch_size):
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )


def report(epoch):
    ddp_print(f"epoch {epoch} done")
