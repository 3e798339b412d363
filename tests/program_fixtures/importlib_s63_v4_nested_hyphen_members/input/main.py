"""The trainer and the criterion modules imported by computed names a level below the
package, with a hyphen no import statement takes (mtroym/pytorch.template@6af2caf:
`importlib.import_module('models.' + opt.netType + '.' + opt.netType + '-train')` reads
`models/deeplab/deeplab-train.py`, stop 63). Before, only `models/<x>/__init__.py` was read
for such a name: the trainer, with the training loop, its prints, its log and its
checkpoint, was left as written, and every rank printed and wrote each line."""
import argparse
import importlib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--net", default="linear")
parser.add_argument("--out", default=".")
args = parser.parse_args()

Trainer = importlib.import_module("models." + args.net + "." + args.net + "-train")
criterions = importlib.import_module(f"models.{args.net}.{args.net}-criterion")

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
trainer = Trainer.createTrainer(model, criterions.createCriterion(), args.out)
for epoch in range(2):
    trainer.train(loader, epoch)
