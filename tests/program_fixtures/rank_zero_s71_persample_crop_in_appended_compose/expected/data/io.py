import numpy as np


def load_mask(path):
    return np.loadtxt(path, dtype=np.float32)
