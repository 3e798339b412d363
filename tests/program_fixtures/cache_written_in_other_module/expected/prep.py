"""Writers of files the entry reads (issue 29 item 2): at a parameter, or at a fixed path
(a literal, a module constant). Once migrated rank 0 alone writes each file."""
import json
import os
import pickle

import numpy as np

from _dp2ddp import ddp_is_main, ddp_rank0_value

STATS = "stats.json"


def build_cache(path):
    if ddp_rank0_value(os.path.isfile, path):
        return
    if ddp_is_main():
        with open(path, "wb") as f:
            pickle.dump([1.0, 2.0], f)


def make_features(out):
    if ddp_is_main():
        np.save(out, np.zeros((4, 4), dtype="float32"))


def write_stats():
    if ddp_is_main():
        with open(STATS, "w") as f:
            json.dump({"scale": 0.5}, f)


def write_notes(path):
    if ddp_is_main():
        with open(path, "w") as f:
            f.write("never read\n")
