"""Merges the pickled parts a folder holds into one file (argoverse-forecasting's
merge_saved_traj: two path parameters, the folder read and the file written)."""

import os
import pickle


def merge_saved(batched_dir, merged_path):
    merged = {}
    for name in sorted(os.listdir(batched_dir)):
        with open(os.path.join(batched_dir, name), "rb") as part:
            merged.update(pickle.load(part))
    with open(merged_path, "wb") as out:
        pickle.dump(merged, out)
    return merged
