"""Scores read back from the saved files, two calls deep (eval_all_results ->
eval_semseg_predictions(save_dir=...) -> eval_semseg(folder) in the same repository)."""
import os

import numpy as np


def score_all_results(p):
    save_dir = p["save_dir"]
    results = {}
    for task in p["tasks"]:
        results[task] = score_task_predictions(save_dir=save_dir, task=task)
    return results


def score_task_predictions(save_dir, task, count=16):
    return score_folder(os.path.join(save_dir, task), count)


def score_folder(folder, count):
    total = 0.0
    for i in range(count):
        filename = os.path.join(folder, "%d.npy" % i)
        total += float(np.load(filename))
    return total
