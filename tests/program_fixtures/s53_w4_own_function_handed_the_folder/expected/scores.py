"""Scores written under the results folder, and compared with the best so far by a function
of the program handed the same configuration first (SimonVandenhende/Multi-Task-Learning-
PyTorch@ed3d9ac evaluation/evaluate_utils.py: eval_all_results, validate_results)."""
import json
import os

from _dp2ddp import ddp_is_main


def save_scores(p, scores):
    os.makedirs(p["save_dir"], exist_ok=True)
    if ddp_is_main():
        with open(os.path.join(p["save_dir"], "scores.json"), "w") as f:
            json.dump(scores, f)


def validate_results(p, current, best):
    improves = all(current[task] < best.get(task, float("inf")) for task in p["tasks"])
    return improves, (current if improves else best)
