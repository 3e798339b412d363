# select() writes the ids file on rank 0; IdDataset (semi.py) reads it on every rank: a
# barrier goes between (without it rank 1 read a half-written list).
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from semi import IdDataset


def select(ids, out_dir):
    with open(os.path.join(out_dir, "reliable_ids.txt"), "w") as f:
        for elem in sorted(ids)[: len(ids) // 2]:
            f.write(elem + "\n")


os.makedirs("out", exist_ok=True)
select([f"img_{i}" for i in range(40)], "out")
dataset = IdDataset("label", None, os.path.join("out", "reliable_ids.txt"))
loader = DataLoader(dataset, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
