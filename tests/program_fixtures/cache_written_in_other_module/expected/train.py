"""A file written on rank 0 by a function of another module and read afterwards by every
rank, here or through a third module (issue 29 item 2; thunlp/OpenNRE@8e42fd7's shape for a
checkpoint): a ddp_barrier() after the writing call, where every rank arrives (after the
`if` a rank decides on its own, `loss.item()`). Where the read is inside such an `if` that
returns, DP054 names the write and the read. A file no rank reads afterwards
(`write_notes`) gets no barrier."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import prep
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_barrier, ddp_setup
from loading import load_cache, read_scale

CACHE = "cache.pkl"


def main():
    ddp_setup()
    prep.build_cache(CACHE)
    ddp_barrier()
    cached = load_cache(CACHE)
    prep.make_features("feats.npy")
    ddp_barrier()
    features = np.load("feats.npy")
    prep.write_stats()
    ddp_barrier()
    scale = read_scale()
    prep.write_notes("notes.txt")
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    loss = model(torch.from_numpy(features)).sum() * scale
    if loss.item() > 0:
        prep.make_features("late.npy")
    ddp_barrier()
    late = np.load("late.npy")
    if loss.item() > 1:
        # dp2ddp: DP054
        prep.make_features("early.npy")
        return np.load("early.npy")
    return cached, late


if __name__ == "__main__":
    main()
