"""The control of rank_zero_s62_s3_json_helpers_barrier_at_caller: train.py reads the file
inside the `if not os.path.exists(...)` that writes it, where no barrier can go: DP054 at
train.py's call (true), and none here for the parameters' spelling."""
import json
import os


def read_json(fpath):
    with open(fpath, "r") as f:
        return json.load(f)


def write_json(obj, fpath):
    os.makedirs(os.path.dirname(fpath) or ".", exist_ok=True)
    with open(fpath, "w") as f:
        json.dump(obj, f)
