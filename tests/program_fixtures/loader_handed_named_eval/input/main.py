"""Class v3-C of stop 41 (hengyuan-hu/bottom-up-attention-vqa@3925206): a shuffled loader
named as an evaluation set, handed to train() of another module, which hands it on to its
own evaluate(), whose loop is not proved to evaluate (no no_grad(); the caller sets the
eval mode): DP084 names that loop (since stop 42; it said "no loop of its module iterates
it"); its name leaves it whole, and DP084 says so (it said "sharded as training data"
beside DP015's "left unsharded")."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from train import train

torch.manual_seed(0)
x = torch.randn(16, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = nn.DataParallel(nn.Linear(6, 1))
train_loader = DataLoader(TensorDataset(x, y), 4, shuffle=False)
eval_loader = DataLoader(TensorDataset(x[:8], y[:8]), 4, shuffle=True)
train(model, train_loader, eval_loader, 2)
