"""ternaus/robot-surgery-segmentation's and LiheYoung/ST-PlusPlus's shapes (stop 42): ids
written by select() on rank 0 and read by IdDataset on every rank (a barrier between), a
loader handed to engine.train(), whose loop iterates an alias of it, and the program's own
helpers.cuda(). Each rank reports in a file of its own (named by its rank) how many ids it
read and the rows of each step."""

import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import engine
from semi import IdDataset


def select(ids, out_dir):
    with open(os.path.join(out_dir, "reliable_ids.txt"), "w") as f:
        for elem in sorted(ids)[: len(ids) // 2]:
            f.write(elem + "\n")


torch.manual_seed(0)
os.makedirs("out", exist_ok=True)
select([f"img_{i}" for i in range(200000)], "out")
dataset = IdDataset("label", None, os.path.join("out", "reliable_ids.txt"))
loader = DataLoader(dataset, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
rows = []
engine.train(model, loader, optimizer, 2, rows)
with open(f"report{os.environ.get('RANK', '0')}.txt", "w") as f:
    f.write(f"ids {len(dataset.ids)} rows {rows}\n")
