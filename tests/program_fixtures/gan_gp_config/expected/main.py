"""The layout of heykeetae/Self-Attention-GAN@8714a54: main.py takes the config from
parameter.py by a star import and hands it to Trainer, constructed once, in main()."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from parameter import *
from trainer import Trainer

# isort: split
from _dp2ddp import (
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)


def main(config):
    ddp_setup()
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(32, 16))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
    if config.train:
        trainer = Trainer(loader, config)
        trainer.train()


if __name__ == "__main__":
    config = get_parameters()
    ddp_print(config)
    main(config)
