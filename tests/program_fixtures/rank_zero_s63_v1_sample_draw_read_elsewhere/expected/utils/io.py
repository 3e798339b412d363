"""Readers of the program's files: a path a caller hands in, read whole."""
import os

import numpy as np


def read_frame(root, name):
    path = os.path.join(root, name)
    return np.loadtxt(path).astype("float32")
