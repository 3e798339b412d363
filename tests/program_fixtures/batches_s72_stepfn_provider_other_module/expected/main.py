"""Batches from the program's own providers, consumed by step functions of another module.

A provider class shuffles the sample indices and hands out batch_size of them per
`__next__`; a generator function yields slices of the samples in order. Neither is a
DataLoader: each rank must train on its part of every batch, as DataParallel scattered it.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_same_random, ddp_setup
from training.steps import fit_step, refine_step

torch.manual_seed(0)
random.seed(0)


class BatchProvider:
    def __init__(self, inputs, targets, batch_size):
        self.inputs = inputs
        self.targets = targets
        self.batch_size = batch_size
        self.order = []

    def __iter__(self):
        return self

    def __next__(self):
        if len(self.order) < self.batch_size:
            self.order = list(range(len(self.inputs)))
            random.shuffle(self.order)
        picked = self.order[: self.batch_size]
        self.order = self.order[self.batch_size :]
        return self.inputs[picked], self.targets[picked]


def in_order(inputs, targets, batch_size):
    while True:
        for start in range(0, len(inputs), batch_size):
            yield inputs[start : start + batch_size], targets[start : start + batch_size]


def main():
    ddp_setup()
    with ddp_same_random():
        inputs = torch.randn(64, 6)
    targets = inputs @ torch.randn(6, 2) + 0.1 * torch.randn(64, 2)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)).to(DEVICE),
        device_ids=DEVICE_IDS,
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    provider = BatchProvider(inputs, targets, 16)
    batches = in_order(inputs, targets, 16)
    for step in range(8):
        fit_step(model, optimizer, provider)
        refine_step(model, optimizer, batches)
    with torch.no_grad():
        full = F.mse_loss(model(inputs), targets).item()
    if ddp_is_main():
        print(f"full-data loss {full:.6f}")
        print(f"sum|w| {sum(p.abs().sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
