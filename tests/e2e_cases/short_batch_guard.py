"""Issue 28 class B1 (layumi/Person_reID_baseline_pytorch): the loop skips the last, short
batch by comparing the batch's size with the configured (global) batch size. Migrated as it
was, every rank's batch is shorter than the global size: no step at all, exit 0."""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batchsize", type=int, default=8)
opt, _ = parser.parse_known_args()  # run by the tests under pytest's argv too

torch.manual_seed(0)
data = TensorDataset(torch.randn(36, 4), torch.randint(0, 2, (36,)))
loader = DataLoader(data, batch_size=opt.batchsize, shuffle=False)
model = nn.DataParallel(nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0
for _epoch in range(2):
    for inputs, labels in loader:
        now_batch_size, features = inputs.shape
        if now_batch_size < opt.batchsize:
            continue
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(inputs), labels).backward()
        optimizer.step()
        steps += 1
E2E_DIGEST = [steps, *(round(float(p.detach().sum()), 5) for p in model.parameters())]
print("final", E2E_DIGEST)
