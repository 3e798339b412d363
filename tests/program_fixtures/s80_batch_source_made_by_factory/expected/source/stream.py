"""The program's own batch source (no DataLoader), cycling through arrays it holds."""
import numpy as np


class ArrayStream:
    def __init__(self, x, y, batch_size):
        self.x, self.y, self.batch_size = x, y, batch_size
        self.at = 0

    def next_batch(self):
        rows = np.arange(self.at, self.at + self.batch_size) % len(self.x)
        self.at += self.batch_size
        return self.x[rows], self.y[rows]
