"""A trainer chosen by a name in a JSON configuration file (haoxiangsnr/Wave-U-Net-for-
Speech-Enhancement's shape): the entry builds the loader, the trainer wraps the model."""
import argparse
import json
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_setup
from util.build import initialize


def main(config):
    ddp_setup()
    torch.manual_seed(config["seed"])
    data = TensorDataset(torch.arange(16.0).view(16, 1), torch.ones(16, 1))
    cfg = config["loader"]
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(cfg["batch_size"]),
        sampler=DdpDistributedSampler(data, shuffle=cfg["shuffle"], advance_epoch=True),
    )
    model = initialize(config["model"])
    trainer_class = initialize(config["trainer"], pass_args=False)
    trainer_class(model, loader).train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config", "train.json")
    parser.add_argument("-C", "--config", default=default)
    args = parser.parse_args()
    ddp_setup()
    main(json.load(open(args.config)))
