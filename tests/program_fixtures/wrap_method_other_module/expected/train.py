"""The entry calls the library's wrap under a GPU flag (DrQA's scripts/reader/train.py:
`if args.parallel: model.parallelize()`, False by default): hoisted as a guarded wrap is,
so every rank wraps at the default too (before: left under the flag, no word, the ranks
trained apart)."""

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_per_rank_batch, ddp_same_random, ddp_setup
from model import Reader

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--parallel", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
model = Reader()
model.parallelize()
with ddp_same_random():
    dataset = TensorDataset(torch.randn(32, 4))
for (x,) in DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
):
    model.update(x)
