"""A preprocess-once cache written on rank 0 here and read by every rank through another
module's function (issue 29): `utils.load_cache(CACHE)` reads the file at its parameter, so
a ddp_barrier() goes between the write and that call. So does a dataset class, of the other
module or of this one, that reads the file its construction names in `__init__`.
`utils.load_table` reads no file at a parameter (it opens a fixed name): its call is no
read of what was written before it.
"""
import os
import pickle

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_barrier,
    ddp_is_main,
    ddp_rank0_value,
    ddp_setup,
)
from utils import CachedSet, load_features

CACHE = "cache.pkl"


class LocalSet:
    def __init__(self, root, path):
        with open(path, "rb") as f:
            self.items = pickle.load(f)
        self.root = root


def main():
    ddp_setup()
    if not ddp_rank0_value(os.path.isfile, CACHE) and ddp_is_main():
        with open(CACHE, "wb") as f:
            pickle.dump([1, 2], f)
    ddp_barrier()
    data = utils.load_cache(CACHE)
    if ddp_is_main():
        with open("features.csv", "w") as f:
            f.write("1,2\n")
    ddp_barrier()
    features = load_features(path="features.csv")
    if ddp_is_main():
        with open("other.pkl", "wb") as f:
            pickle.dump(data, f)
    utils.load_table("other.pkl")
    if ddp_is_main():
        with open("set.pkl", "wb") as f:
            pickle.dump([3], f)
    ddp_barrier()
    built = CachedSet("set.pkl")
    if ddp_is_main():
        with open("local.pkl", "wb") as f:
            pickle.dump([4], f)
    ddp_barrier()
    local = LocalSet(".", path="local.pkl")
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    model(torch.randn(4, 4))
    return data, features, built, local


if __name__ == "__main__":
    main()
