import pickle

import numpy as np


def load_cache(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def load_features(path):
    return np.loadtxt(path, delimiter=",")


def load_table(name):
    with open("table.pkl", "rb") as f:
        return pickle.load(f), name


class CachedSet:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.items = pickle.load(f)
