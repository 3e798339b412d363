"""A preprocess-once cache folder, listed right after it is filled (issue 29, class C1).

`if not os.path.exists(cache): os.makedirs(cache)` then a loop of np.save into it, then
`os.listdir(cache)` in the same function and `glob.glob(cache + "/*")` in another. Migrated
without the fix, rank 1 made the folder before rank 0 read the test, so rank 0 skipped its
writes and every rank listed an empty folder (or the slow rank's writes were listed half
done). The test is rank 0's reading, every rank goes in, and a barrier follows the writing
loop. The rank named by E2E_SLOW_RANK is late to the check (rank 0: also to each write).
"""

import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn


def slow(rank, seconds):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(seconds)


def cached_paths(root):
    cache = root + "_npy"
    slow("0", 0.5)
    slow("1", 0.5)
    if not os.path.exists(cache):
        os.makedirs(cache)
        for i in range(6):
            if os.environ.get("E2E_SLOW_RANK") == os.environ.get("RANK", "0") == "0":
                time.sleep(0.1)  # rank 0 slow to write: a listing too early is short
            np.save(os.path.join(cache, "%03d.npy" % i), np.full((4,), float(i), np.float32))
    paths = sorted(os.path.join(cache, f) for f in os.listdir(cache))
    assert paths, "no cached files in %s" % cache
    return paths


def globbed(root):
    return sorted(glob.glob(root + "_npy/*"))


def main():
    paths = cached_paths("raw")
    data = torch.from_numpy(np.stack([np.load(p) for p in paths]))
    model = nn.DataParallel(nn.Linear(4, 1))
    model(data).pow(2).mean().backward()
    counts = (len(paths), len(globbed("raw")))
    assert counts == (6, 6), counts  # every rank, its own listings
    print("listed %d globbed %d" % counts)


if __name__ == "__main__":
    main()
