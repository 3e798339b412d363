"""A cache folder named one way where it is filled and another where it is read or listed
(issue 29, C1's rest): `os.path.join(root, "cache")` then `f"{root}/cache/{i}.npy"`,
`Path(root) / "feats"` then `os.path.join(root, "feats", ...)`, and `self.table` (bound in
`__init__`) then `os.listdir(os.path.join(ROOT, "table"))`. Matched by no text, none got a
barrier: the rank not slowed read a file rank 0 had not written (FileNotFoundError), or
listed a part of the folder. Each path's form matches them (rank_zero/path_forms.py): a
barrier after each writing loop. E2E_SLOW_RANK's rank is late to each write.
"""

import os
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

ROOT = "spelled"


def slow(seconds):
    rank = os.environ.get("RANK", "0")
    if os.environ.get("E2E_SLOW_RANK") == rank:
        time.sleep(seconds)


def prepare(root):
    cache = os.path.join(root, "cache")
    os.makedirs(cache, exist_ok=True)
    for i in range(3):
        slow(0.3)
        np.save(os.path.join(cache, f"{i}.npy"), np.full((4,), i, np.float32))


def load(root):
    return np.stack([np.load(f"{root}/cache/{i}.npy") for i in range(3)])


def prepare_paths(root):
    folder = Path(root) / "feats"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        slow(0.3)
        np.save(folder / f"{i}.npy", np.full((4,), i, np.float32))


def load_paths(root):
    return np.stack([np.load(os.path.join(root, "feats", f"{i}.npy")) for i in range(3)])


class Table:
    def __init__(self, root):
        self.table = os.path.join(root, "table")
        os.makedirs(self.table, exist_ok=True)

    def fill(self):
        for i in range(3):
            slow(0.3)
            np.save(os.path.join(self.table, f"{i}.npy"), np.full((4,), i, np.float32))


def listed():
    return sorted(os.listdir(os.path.join(ROOT, "table")))


def main():
    prepare(ROOT)
    prepare_paths(ROOT)
    Table(ROOT).fill()
    data = torch.from_numpy(np.concatenate([load(ROOT), load_paths(ROOT)]))
    model = nn.DataParallel(nn.Linear(4, 1))
    model(data).pow(2).mean().backward()
    print("rows", data.shape[0], "listed", len(listed()))


if __name__ == "__main__":
    main()
