import numpy as np


class ChunkedGenerator:
    def __init__(self, batch_size, poses, targets, shuffle=True, random_seed=1234):
        self.batch_size = batch_size
        self.poses = poses
        self.targets = targets
        self.shuffle = shuffle
        self.random = np.random.RandomState(random_seed)

    def random_state(self):
        return self.random

    def set_random_state(self, random):
        self.random = random

    def next_epoch(self):
        order = np.arange(len(self.poses))
        if self.shuffle:
            order = self.random.permutation(order)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            yield self.poses[rows], self.targets[rows]
