"""Writers of files the entry reads (issue 29 item 2): at a parameter, or at a fixed path
(a literal, a module constant). Once migrated rank 0 alone writes each file."""
import json
import os
import pickle

import numpy as np

STATS = "stats.json"


def build_cache(path):
    if os.path.isfile(path):
        return
    with open(path, "wb") as f:
        pickle.dump([1.0, 2.0], f)


def make_features(out):
    np.save(out, np.zeros((4, 4), dtype="float32"))


def write_stats():
    with open(STATS, "w") as f:
        json.dump({"scale": 0.5}, f)


def write_notes(path):
    with open(path, "w") as f:
        f.write("never read\n")
