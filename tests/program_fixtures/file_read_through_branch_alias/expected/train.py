# select() writes the ids file on rank 0; IdDataset (semi.py) reads it on every rank: a
# barrier goes between (without it rank 1 read a half-written list).
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_barrier,
    ddp_discard_path,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)
from semi import IdDataset

ddp_setup()


def select(ids, out_dir):
    with open(os.path.join(out_dir, "reliable_ids.txt") if ddp_is_main() else ddp_discard_path(), "w") as f:
        for elem in sorted(ids)[: len(ids) // 2]:
            f.write(elem + "\n")
    ddp_barrier()


os.makedirs("out", exist_ok=True)
select([f"img_{i}" for i in range(40)], "out")
dataset = IdDataset("label", None, os.path.join("out", "reliable_ids.txt"))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(dataset, shuffle=True),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
