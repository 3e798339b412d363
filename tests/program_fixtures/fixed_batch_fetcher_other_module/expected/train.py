"""Entry: both loaders from one helper of data.py, handed to the trainer in a dict."""

import torch

from _dp2ddp import ddp_setup
from data import datasets, get_loader
from solver import Solver

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    loaders = dict(src=get_loader(datasets(32), 8), val=get_loader(datasets(16), 8))
    Solver().train(loaders)
