"""An output folder whose existence decides whether the run goes on (issue 29).

`if out.exists(): print("Already done!"); sys.exit()` / `else: out.mkdir()`: each rank
checked on its own, and the late one found the folder the other had just made and exited,
while the other waited in DDP's first collective (yandex-research/rtdl-revisiting-models'
shape). Rank 0's reading decides for every rank. The rank named by E2E_SLOW_RANK is 1.1 s
late to the check.
"""

import os
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def slow(rank):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(1.1)


def main():
    slow("0")
    slow("1")
    out = Path("exp_out")
    if out.exists():
        print("Already done!")
        sys.exit()
    else:
        out.mkdir()
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    torch.save(model.state_dict(), out / "model.pt")
    print("done")


if __name__ == "__main__":
    main()
