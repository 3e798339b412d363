"""A Trainer of another module feeding its losses to a dict of lists and to its own
tracker object, printed as the epoch's figures (elektronn3's shape)."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from lib.trainer import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Linear(4, 1)
model = nn.DataParallel(model)
x = torch.arange(64.0).view(16, 4) / 64
dataset = TensorDataset(x, x.sum(1, keepdim=True))
trainer = Trainer(model, dataset, batch_size=4)
trainer.run(args.epochs)
