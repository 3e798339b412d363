"""A Trainer of another module feeding its losses to a dict of lists and to its own
tracker object, printed as the epoch's figures (elektronn3's shape)."""

import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from lib.trainer import Trainer

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Linear(4, 1)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
x = torch.arange(64.0).view(16, 4) / 64
dataset = TensorDataset(x, x.sum(1, keepdim=True))
trainer = Trainer(model, dataset, batch_size=4)
trainer.run(args.epochs)
