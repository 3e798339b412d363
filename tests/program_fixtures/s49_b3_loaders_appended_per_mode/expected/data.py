"""One loader per requested mode, appended in a loop and returned as a list (class b3-A of
stop 49's second validation round, WenbinLee/DN4@440857b's get_Fewshot_dataloader): the
validation loader is shuffled "to see progress"."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random


def get_loaders(sizes, modes):
    loaders = []
    with ddp_same_random():
        for mode in modes:
            dataset = TensorDataset(
                torch.randn(sizes[mode], 4), torch.randn(sizes[mode], 1)
            )
            if mode == "train":
                # dp2ddp: DP011, DP135
                loader = DataLoader(
                    dataset,
                    batch_size=ddp_per_rank_batch(4),
                    sampler=DdpDistributedSampler(
                        dataset, shuffle=True, advance_epoch=True, rebuilt="data.py:13"
                    ),
                )
            elif mode == "val":
                # dp2ddp: DP011, DP135
                loader = DataLoader(
                    dataset,
                    batch_size=ddp_per_rank_batch(4),
                    sampler=DdpDistributedSampler(
                        dataset, shuffle=True, advance_epoch=True, rebuilt="data.py:13"
                    ),
                )
            else:
                # dp2ddp: DP015 evaluation metrics not reduced
                loader = DataLoader(dataset, batch_size=4, shuffle=False)
            loaders.append(loader)
    return loaders
