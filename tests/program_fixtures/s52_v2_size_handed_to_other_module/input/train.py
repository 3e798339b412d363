# The loader's global batch size handed beside the model's output to another module's
# function that splits that output by it (validation round 5 of stop 52, v2-B: shjo-april/
# PuzzleCAM@659b4c1 train_classification_with_puzzle.py:336, `merge_features(tiled_features,
# args.num_pieces, args.batch_size)` of `from core.puzzle_utils import *`). This module does
# not read merge_features: DP140 (before: nothing said, IndexError on both ranks at the
# first step).
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from puzzle import *

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--num_pieces", type=int, default=2)
args = parser.parse_args()
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
train_loader = DataLoader(data, batch_size=args.batch_size, shuffle=True)
model = nn.DataParallel(nn.Linear(3, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for images, labels in train_loader:
        tiled = tile_features(images, args.num_pieces)
        tiled_out = model(tiled)
        merged = merge_features(tiled_out, args.num_pieces, args.batch_size)
        loss = ((merged - labels) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("weights %.4f" % model.module.weight.sum().item())
