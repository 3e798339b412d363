"""The entry calls the library's wrap under a GPU flag (DrQA's scripts/reader/train.py:
`if args.parallel: model.parallelize()`, False by default): hoisted as a guarded wrap is,
so every rank wraps at the default too (before: left under the flag, no word, the ranks
trained apart)."""

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Reader

parser = argparse.ArgumentParser()
parser.add_argument("--parallel", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
model = Reader()
if args.parallel:
    model.parallelize()
for (x,) in DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8, shuffle=True):
    model.update(x)
