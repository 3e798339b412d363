"""A run directory named by the first free index (issue 29).

`while os.path.exists(f"exp_{i}"): i += 1` then `os.mkdir(...)`: on every rank, the rank
that comes second finds the first rank's directory and takes the next index, so one run
makes two directories and rank 0 may save into the wrong one. The rank named by
E2E_SLOW_RANK looks 1.1 s late.
"""

import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    i = 0
    while os.path.exists(f"exp_{i}"):
        i += 1
    run_dir = f"exp_{i}"
    os.mkdir(run_dir)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), os.path.join(run_dir, "model.pt"))
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    runs = sorted(d for d in os.listdir(".") if d.startswith("exp_"))
    print("runs:", runs)


if __name__ == "__main__":
    main()
