"""A run named from the model's class in another module's Trainer (elektronn3's shape):
the wrap under an option here, the name read there."""

import argparse

import torch
import torch.nn as nn

from lib import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
if not args.single:
    model = nn.DataParallel(model)
x = torch.arange(32.0).view(8, 4) / 32
y = x.sum(1, keepdim=True)
trainer = Trainer(model=model, data=(x, y))
trainer.run(2)
