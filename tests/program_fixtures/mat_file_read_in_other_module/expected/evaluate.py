import numpy as np
import scipy.io


def score(path):
    got = scipy.io.loadmat(path)
    return float(np.mean(got["fl"]) + np.mean(got["flag"]))
