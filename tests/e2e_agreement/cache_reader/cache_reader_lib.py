"""Reads a cache file at the path its caller names (the reader of cache_reader/train.py);
writes a table at the path its caller names, and statistics at a fixed path (the writers:
rank 0 alone writes, once migrated)."""

import json
import os
import pickle
import time

STATS = "reader_stats.json"


def late():
    """Rank 0 late while writing (E2E_SLOW_RANK=0)."""
    if os.environ.get("E2E_SLOW_RANK") == "0" and os.environ.get("RANK", "0") == "0":
        time.sleep(1.1)


def write_table(out):
    late()
    with open(out, "wb") as f:
        pickle.dump({"rows": 4}, f)


def write_stats():
    late()
    with open(STATS, "w") as f:
        json.dump({"scale": 0.5}, f)


def load_cache(path):
    with open(path, "rb") as f:
        return pickle.load(f)


class Vocab:
    def __init__(self, path):
        with open(path) as f:
            self.words = f.read().split()
