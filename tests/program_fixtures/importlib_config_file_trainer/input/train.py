"""A trainer chosen by a name in a JSON configuration file (haoxiangsnr/Wave-U-Net-for-
Speech-Enhancement's shape): the entry builds the loader, the trainer wraps the model."""
import argparse
import json
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from util.build import initialize


def main(config):
    torch.manual_seed(config["seed"])
    data = TensorDataset(torch.arange(16.0).view(16, 1), torch.ones(16, 1))
    cfg = config["loader"]
    loader = DataLoader(data, batch_size=cfg["batch_size"], shuffle=cfg["shuffle"])
    model = initialize(config["model"])
    trainer_class = initialize(config["trainer"], pass_args=False)
    trainer_class(model, loader).train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config", "train.json")
    parser.add_argument("-C", "--config", default=default)
    args = parser.parse_args()
    main(json.load(open(args.config)))
