import numpy as np


def random_point_dropout(batch):
    for b in range(batch.shape[0]):
        batch[b, : np.random.randint(0, 2), :] = batch[b, 0, :]
    return batch


def random_scale(batch):
    return batch * np.random.uniform(0.8, 1.2, (batch.shape[0], 1, 1))
