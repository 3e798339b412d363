"""The program's own provider handed to a step of another module that copies each batch
into buffers of the global batch's size (kam1107/RealnessGAN's `x.copy_(images)`)."""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_same_random, ddp_setup
from training.learn import learn

ddp_setup()


torch.manual_seed(0)
random.seed(0)


class DataProvider:
    def __init__(self, inputs, targets, batch_size):
        self.inputs = inputs
        self.targets = targets
        self.batch_size = batch_size
        self.order = []

    def __next__(self):
        if len(self.order) < self.batch_size:
            self.order = list(range(len(self.inputs)))
            random.shuffle(self.order)
        picked = self.order[: self.batch_size]
        self.order = self.order[self.batch_size :]
        return self.inputs[picked], self.targets[picked]


with ddp_same_random():
    inputs = torch.randn(64, 6)
targets = inputs @ torch.randn(6, 2) + 0.1 * torch.randn(64, 2)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
provider = DataProvider(inputs, targets, 16)
x = torch.zeros(16, 6)
y = torch.zeros(16, 2)
for step in range(12):
    learn(model, optimizer, provider, x, y)
with torch.no_grad():
    full = F.mse_loss(model(inputs), targets).item()
if ddp_is_main():
    print(f"full-data loss {full:.6f}")
    print(f"sum|w| {sum(p.abs().sum().item() for p in model.parameters()):.6f}")
