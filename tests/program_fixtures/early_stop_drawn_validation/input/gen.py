"""Batches drawn by a generator function (our own, after ModelsGenesis's generate_pair)."""
import random

import numpy as np


def generate_pair(data, batch_size):
    while True:
        index = list(range(data.shape[0]))
        random.shuffle(index)
        y = data[index[:batch_size]]
        x = y + 0.1 * np.random.rand(*y.shape).astype(np.float32)
        yield x, y
