"""save() is called under each rank's own clock: no barrier may go into it (a rank would
wait there while the other goes on); save_epoch() is called by every rank alike: it keeps
its barrier (LMescheder/GAN_stability@c1f64c9)."""

import time

import torch
import torch.nn as nn
from ckptlib.store import Checkpoint
from torch.utils.data import DataLoader, TensorDataset

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
        if time.time() - t0 > 0.05:
            ckpt.save("last.pt")
            t0 = time.time()
    ckpt.save_epoch(f"epoch{epoch}.pt")
