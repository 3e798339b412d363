"""A checkpoint saved every 0.05 s of each rank's own wall clock through another module's
helper (LMescheder/GAN_stability@c1f64c9): the slow rank (E2E_SLOW_RANK) crosses the
threshold at other steps than the fast one, so a barrier in the helper would hang."""

import os
import time

import torch
import torch.nn as nn
from clock_ckpt.store import Checkpoint
from torch.utils.data import DataLoader, TensorDataset

SLOW = os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK")
torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ckpt = Checkpoint(model)
ckpt.load("last.pt")
t0 = time.time()
for epoch in range(3):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if SLOW:
            time.sleep(0.03)
        if time.time() - t0 > 0.05:
            ckpt.save("last.pt")
            t0 = time.time()
    ckpt.save_epoch(f"epoch{epoch}.pt")
print("epochs saved:", len([p for p in os.listdir(".") if p.startswith("epoch")]))
