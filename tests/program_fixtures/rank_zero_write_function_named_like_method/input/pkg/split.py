import os

import numpy as np


def load_data(root):
    path = os.path.join(root, "split.npy")
    if not os.path.exists(path):
        os.makedirs(root, exist_ok=True)
        np.save(path, np.arange(16))
    return np.load(path)
