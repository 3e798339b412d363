"""Scores read back from the saved files (eval_all_results -> eval_semseg's shape)."""
import os

import numpy as np


def score_predictions(folder, count):
    total = 0.0
    for i in range(count):
        total += float(np.load(os.path.join(folder, "%d.npy" % i)))
    return total
