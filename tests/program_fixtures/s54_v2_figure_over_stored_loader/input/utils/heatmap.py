import numpy as np


def make_target(label, scale):
    return np.asarray(label) * scale
