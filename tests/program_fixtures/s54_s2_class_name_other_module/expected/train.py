"""A run named from the model's class in another module's Trainer (elektronn3's shape):
the wrap under an option here, the name read there."""

import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from lib import Trainer

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
# dp2ddp: DP012 DataParallel wrap kept under a condition
if not args.single:
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
x = torch.arange(32.0).view(8, 4) / 32
y = x.sum(1, keepdim=True)
trainer = Trainer(model=model, data=(x, y))
trainer.run(2)
