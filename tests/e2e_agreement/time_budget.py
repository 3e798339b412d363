"""A training loop ended by a time budget (issue 29, stop 33 survey class a).

`if time.time() - start > budget: break` read on each rank: the rank named by E2E_SLOW_RANK
starts its clock 1.1 s late, the ranks leave at different steps, and the other rank fails
in its next gradient all-reduce (before: rc 1 with either rank slower). Migrated, both
clock reads are rank 0's value: every rank leaves at the same step. The step is a function
the loop calls.
"""

import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train_step(model, opt, x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    start = time.time()
    steps = 0
    for epoch in range(1000):
        for x, y in loader:
            train_step(model, opt, x, y)
            time.sleep(0.02)
        steps += 1
        if time.time() - start > 0.6:
            break
    print("stopped:", steps > 0)


if __name__ == "__main__":
    main()
