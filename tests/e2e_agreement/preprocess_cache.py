"""A preprocess-once cache, written then read right after (issue 29).

`if not os.path.isfile(CACHE): ... pickle.dump(data, f)` then `pickle.load`: the write goes
to rank 0, and every other rank read the file before rank 0 had finished it
(FileNotFoundError, or a truncated pickle). The same with np.save in one function and
np.load in another, and a vocabulary written in a `with` that does more than write. A
method that returns early when its cache exists, else writes it, read back by its caller
(the rank that found rank 0's new file returned and never reached the barrier after the
write: a hang, unless the check is rank 0's reading). A helper that writes the file its
parameter names, called with the path the caller then reads. Features cached in a
temporary directory each process would make its own (`tempfile.mkdtemp()`), removed on
rank 0 once read (not before every rank read it). The rank named by E2E_SLOW_RANK is
1.1 s late (rank 0: while writing; rank 1: before the method's check).
"""

import json
import os
import pickle
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CACHE = "cache.pkl"


def slow(rank):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(1.1)


def preprocess():
    torch.manual_seed(0)
    return {"x": torch.randn(32, 4), "y": torch.randint(0, 2, (32,))}


def save_features(x):
    slow("0")
    np.save("features.npy", x.numpy() * 2)


def load_features():
    return torch.from_numpy(np.load("features.npy"))


def write_table(name):
    slow("0")
    with open(name, "w") as f:
        f.write("1,2\n")


def temp_features():
    tmp = tempfile.mkdtemp(prefix="dp2ddp_e2e_")
    slow("0")
    np.save(os.path.join(tmp, "t.npy"), np.arange(3))
    slow("1")  # read late: rank 0 must not have removed the directory yet
    values = np.load(os.path.join(tmp, "t.npy")).tolist()
    shutil.rmtree(tmp, ignore_errors=True)
    return values


def vocabulary():
    if not os.path.exists("vocab.json"):
        with open("vocab.json", "w") as f:
            slow("0")  # inside the `with`: opened on a scratch file off rank 0, not guarded whole
            json.dump(["a", "b"], f)
    with open("vocab.json") as f:
        return json.load(f)


class Cached:
    path = "cached.pkl"

    def preprocess(self):
        slow("1")
        if os.path.isfile(self.path):
            return
        slow("0")
        with open(self.path, "wb") as f:
            pickle.dump([1, 2, 3], f)

    def load(self):
        self.preprocess()
        with open(self.path, "rb") as f:
            return pickle.load(f)


class PathCached:
    """The same through pathlib: the file named by a local, written by `path.open("wb")`
    and read by the caller through `self._path().open("rb")` (no barrier seen before:
    FileNotFoundError on rank 1)."""

    def _path(self):
        return Path("pathcached.pkl")

    def preprocess(self):
        path = self._path()
        if path.is_file():
            return
        slow("0")
        with path.open("wb") as f:
            pickle.dump([4, 5], f)

    def load(self):
        self.preprocess()
        return pickle.load(self._path().open("rb"))


def main():
    slow("1")
    assert vocabulary() == ["a", "b"]
    assert Cached().load() == [1, 2, 3]
    assert PathCached().load() == [4, 5]
    write_table("table.csv")
    assert temp_features() == [0, 1, 2]
    with open("table.csv") as f:
        assert f.read() == "1,2\n"
    if not os.path.isfile(CACHE):
        data = preprocess()
        slow("0")
        with open(CACHE, "wb") as f:
            pickle.dump(data, f)
    with open(CACHE, "rb") as f:
        data = pickle.load(f)
    save_features(data["x"])
    features = load_features()
    loader = DataLoader(TensorDataset(features, data["y"]), batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    files = sorted(p for p in os.listdir(".") if not p.startswith("rank"))
    print("cache:", files)


if __name__ == "__main__":
    main()
