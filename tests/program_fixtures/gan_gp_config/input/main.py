"""The layout of heykeetae/Self-Attention-GAN@8714a54: main.py takes the config from
parameter.py by a star import and hands it to Trainer, constructed once, in main()."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from parameter import *
from trainer import Trainer


def main(config):
    loader = DataLoader(TensorDataset(torch.randn(32, 16)), batch_size=8, shuffle=True)
    if config.train:
        trainer = Trainer(loader, config)
        trainer.train()


if __name__ == "__main__":
    config = get_parameters()
    print(config)
    main(config)
