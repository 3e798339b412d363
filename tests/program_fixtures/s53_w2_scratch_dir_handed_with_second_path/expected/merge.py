"""Merges the pickled parts a folder holds into one file (argoverse-forecasting's
merge_saved_traj: two path parameters, the folder read and the file written)."""

import os
import pickle

from _dp2ddp import ddp_is_main, ddp_rank0_value


def merge_saved(batched_dir, merged_path):
    merged = {}
    for name in sorted(ddp_rank0_value(os.listdir, batched_dir)):
        with open(os.path.join(batched_dir, name), "rb") as part:
            merged.update(pickle.load(part))
    if ddp_is_main():
        with open(merged_path, "wb") as out:
            pickle.dump(merged, out)
    return merged
