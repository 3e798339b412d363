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
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--net", default="linear")
parser.add_argument("--out", default=".")
args = parser.parse_args()

Trainer = importlib.import_module("models." + args.net + "." + args.net + "-train")
criterions = importlib.import_module(f"models.{args.net}.{args.net}-criterion")

torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
)
trainer = Trainer.createTrainer(model, criterions.createCriterion(), args.out)
for epoch in range(2):
    trainer.train(loader, epoch)
