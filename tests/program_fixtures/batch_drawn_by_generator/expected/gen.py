"""Batches drawn by a generator function (the shape of ModelsGenesis@12f7feb's
pytorch/utils.py generate_pair): Python's `random` picks the rows, numpy corrupts them."""
import random

import numpy as np


def generate_pair(data, batch_size):
    while True:
        index = list(range(data.shape[0]))
        random.shuffle(index)
        y = data[index[:batch_size]]
        x = y + 0.1 * np.random.rand(*y.shape).astype(np.float32)
        yield x, y
