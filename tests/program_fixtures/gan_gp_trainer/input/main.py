"""A GAN trainer in its own module (the layout of heykeetae/Self-Attention-GAN@8714a54):
main.py builds the config and the loader and hands them to Trainer."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_step", type=int, default=4)
    config = parser.parse_args()
    loader = DataLoader(TensorDataset(torch.randn(32, 16)), batch_size=8, shuffle=True)
    Trainer(loader, config).train()
