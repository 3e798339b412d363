import numpy as np


def split_list(items, split):
    """The train/test split, drawn from numpy's global generator."""
    keep = np.random.uniform(0, 1, len(items)) < split
    train = [x for x, k in zip(items, keep) if k]
    test = [x for x, k in zip(items, keep) if not k]
    return train, test
