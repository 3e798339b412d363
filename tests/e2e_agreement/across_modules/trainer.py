"""Training and the checkpoint, saved here and loaded by train.py (issue 29)."""

import os
import time

import torch
import torch.nn as nn


def fit(model, loader, save_dir):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK") == "0":
        time.sleep(1.1)  # rank 0 saves late
    torch.save(model.state_dict(), os.path.join(save_dir, "best.pt"))
