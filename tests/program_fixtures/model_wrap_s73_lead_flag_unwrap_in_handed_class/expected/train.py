"""The model is wrapped only under the program's flag, and another module's solver unwraps it
by a copy of that flag (`self.model.module if self.use_cuda else self.model`). The migration
wraps always, so the `.module` side is kept there (before: with the flag off the solver
handed the DDP object to the model's own `serialize()`: AttributeError on rank 0; round 26,
kaituoxu/Tacotron2@8efdee5)."""

import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from solver import Solver

ddp_setup()


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
    dataset = TensorDataset(x, x[:, :2] * 2)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = Net()
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    if args.use_cuda:
        model.to(DEVICE)
    Solver(model, loader, args).train()
