"""Predictions saved one file per item (SimonVandenhende/Multi-Task-Learning-PyTorch's
save_model_predictions shape)."""
import os
import time

import numpy as np

#: A slow disk on rank 0 when launched by torchrun (the original runs with no RANK): the race
#: between rank 0's writes and another rank's reads made certain for the test.
DELAY = 1.0 if os.environ.get("RANK") == "0" else 0.0


def save_predictions(folder, values):
    os.makedirs(folder, exist_ok=True)
    time.sleep(DELAY)
    for i, value in enumerate(values):
        np.save(os.path.join(folder, "%d.npy" % i), np.asarray(value))
