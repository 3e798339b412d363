"""Files written on rank 0 and read by every rank through paths no text matches (issue 29):
a path built from a loop variable, read back in a loop over the same list; shards written
into a directory every rank then lists (`Path(OUT).glob`, `os.listdir`); a path kept in a
dict item, read by its value. Each write gets a ddp_barrier() after it: without one, the
rank not slowed read `train.npy` before rank 0 had written it (FileNotFoundError), or listed
fewer shards than rank 0 wrote. The rank named by E2E_SLOW_RANK is 1.1 s late (rank 0: while
writing; rank 1: at the start).
"""

import os
import pickle
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SPLITS = ["train", "val"]
OUT = "shards"


def slow(rank):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(1.1)


def build(splits):
    for split in splits:
        slow("0")
        np.save(f"{split}.npy", np.arange(3) + len(split))
    return [np.load(f"{name}.npy").tolist() for name in splits]


def shards():
    os.makedirs(OUT, exist_ok=True)
    for i in range(3):
        if i == 2:
            slow("0")
        np.save(os.path.join(OUT, f"{i}.npy"), np.arange(2))
    return len(list(Path(OUT).glob("*.npy"))), len(os.listdir(OUT))


def through_dict(out):
    paths = {"cache": out, "log": "log.txt"}
    slow("0")
    with open(paths["cache"], "wb") as f:
        pickle.dump([7], f)
    with open(out, "rb") as f:
        return pickle.load(f)


def main():
    slow("1")
    assert build(SPLITS) == [[5, 6, 7], [3, 4, 5]]
    assert shards() == (3, 3)
    assert through_dict("item.pkl") == [7]
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(data, batch_size=8, shuffle=True):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    files = sorted(p for p in os.listdir(".") if not p.startswith("rank"))
    shards_written = sorted(os.listdir(OUT))
    print("paths:", files, shards_written)


if __name__ == "__main__":
    main()
