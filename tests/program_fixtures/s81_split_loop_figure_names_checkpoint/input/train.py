"""The entry: trains, then loads the checkpoint the runner named (runner.py)."""
import torch
import torch.nn as nn

from batches import Splits
from runner import Runner

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(3, 1))
runner = Runner(model)
splits = Splits()
runner.fit((splits.train, splits.valid), 3)
model.load_state_dict(torch.load(runner.best["path"]))
print("best", runner.best["path"], "weights", round(model.module.weight.sum().item(), 6))
