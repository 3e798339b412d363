"""Predictions saved one file per item and task, under a folder per task named in a dict
comprehension (SimonVandenhende/Multi-Task-Learning-PyTorch's save_model_predictions)."""
import os
import time

import numpy as np
import torch

from _dp2ddp import ddp_is_main

#: A slow disk on rank 0 when launched by torchrun (the original runs with no RANK): the race
#: between rank 0's writes and another rank's reads made certain for the test.
DELAY = 1.0 if os.environ.get("RANK") == "0" else 0.0


@torch.no_grad()
def save_model_predictions(p, inputs, model):
    tasks = p["tasks"]
    save_dirs = {task: os.path.join(p["save_dir"], task) for task in tasks}
    for save_dir in save_dirs.values():
        os.makedirs(save_dir, exist_ok=True)
    output = model(inputs)
    time.sleep(DELAY)
    for t, task in enumerate(tasks):
        for i in range(output.size(0)):
            if ddp_is_main():
                np.save(
                    os.path.join(save_dirs[task], "%d.npy" % i), output[i, t].numpy()
                )
