"""The model is wrapped only under the program's flag, and another module's solver unwraps it
by a copy of that flag (`self.model.module if self.use_cuda else self.model`). The migration
wraps always, so the `.module` side is kept there (before: with the flag off the solver
handed the DDP object to the model's own `serialize()`: AttributeError on rank 0; round 26,
kaituoxu/Tacotron2@8efdee5)."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from solver import Solver


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, x):
        return self.lin(x)

    def serialize(self):
        return {"state": self.state_dict(), "weights": self.lin.weight.sum().item()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_cuda", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    loader = DataLoader(TensorDataset(x, x[:, :2] * 2), batch_size=8)
    model = Net()
    if args.use_cuda:
        model = nn.DataParallel(model)
        model.cuda()
    Solver(model, loader, args).train()
