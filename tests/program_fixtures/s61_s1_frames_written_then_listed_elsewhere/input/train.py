"""Frames written by the entry, listed by another module's Dataset (stop 60 s2's leftover,
found writing its Pix2Vox fixture): the entry saves each frame (made rank 0's) and
`Frames(ROOT)` of utils/frames.py lists the folder in `__init__` on every rank. A class
whose `__init__` reads or lists what it is handed is a reader of that folder, and a file
written within it is what it may read: a ddp_barrier() after the write loop (before: none,
no warning; rank 1 listed a folder rank 0 was still filling, trained on fewer frames and
left rank 0 waiting at its next all-reduce, where rank 0's saves were slower)."""
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from utils.frames import Frames

ROOT = "frames"


def main():
    os.makedirs(ROOT, exist_ok=True)
    rng = np.random.RandomState(0)
    for i in range(16):
        frame = rng.randn(4)
        np.save(os.path.join(ROOT, "%02d.npy" % i), frame)
    torch.manual_seed(0)
    loader = DataLoader(Frames(ROOT), batch_size=4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = (model(x).squeeze(1) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("frames %d" % len(loader.dataset))
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
