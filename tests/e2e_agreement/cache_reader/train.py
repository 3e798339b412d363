"""A preprocess-once cache written on rank 0 here and read by every rank through another
module's function (issue 29): `cache_reader_lib.load_cache(CACHE)` reads the file at its
parameter, so a ddp_barrier() goes before that call; so does `cache_reader_lib.Vocab(path)`,
a class that reads its file in `__init__`. Without them the rank not slowed read the file
before rank 0 had written it (FileNotFoundError). E2E_SLOW_RANK: that rank is 1.1 s
late (rank 0: while writing; rank 1: at the start).

Written in another module (issue 29 item 2): `cache_reader_lib.write_table(path)` writes at
its parameter and `write_stats()` at a fixed path, rank 0 alone; every rank reads them after
the call (here, and in a third module, cache_stats_lib.read_stats()): a ddp_barrier() after
each writing call."""

import os
import pickle
import time

import cache_reader_lib
import torch
from cache_stats_lib import read_stats
import torch.nn as nn

CACHE = "reader_cache.pkl"


def slow(rank):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(1.1)


def main():
    slow("1")
    if not os.path.isfile(CACHE):
        slow("0")
        with open(CACHE, "wb") as f:
            pickle.dump([1, 2, 3], f)
    data = cache_reader_lib.load_cache(CACHE)
    with open("reader_vocab.txt", "w") as f:
        slow("0")
        f.write("a b c\n")
    vocab = cache_reader_lib.Vocab("reader_vocab.txt")
    assert vocab.words == ["a", "b", "c"], vocab.words
    cache_reader_lib.write_table("reader_table.pkl")
    with open("reader_table.pkl", "rb") as f:
        assert pickle.load(f) == {"rows": 4}
    cache_reader_lib.write_stats()
    assert read_stats() == {"scale": 0.5}
    model = nn.DataParallel(nn.Linear(3, 1))
    model(torch.tensor([data], dtype=torch.float32)).sum().backward()
    print("read:", data)


if __name__ == "__main__":
    main()
