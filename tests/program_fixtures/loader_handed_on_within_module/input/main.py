"""A shuffled validation loader handed to fit() of another module, which hands it on to
check() of its own module, where a loop evaluates it: left whole (DP015, proved through the
hand-on), not sharded as training data under DP084's "no loop of its module iterates it"."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import fit

torch.manual_seed(0)
x = torch.randn(16, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = nn.DataParallel(nn.Linear(6, 1))
train_loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True)
held = DataLoader(TensorDataset(x[:8], y[:8]), batch_size=4, shuffle=True)
fit(model, train_loader, held, 2)
