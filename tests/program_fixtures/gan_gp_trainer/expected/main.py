"""A GAN trainer in its own module (the layout of heykeetae/Self-Attention-GAN@8714a54):
main.py builds the config and the loader and hands them to Trainer."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from trainer import Trainer

ddp_setup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_step", type=int, default=4)
    config = parser.parse_args()
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(32, 16))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
    Trainer(loader, config).train()
