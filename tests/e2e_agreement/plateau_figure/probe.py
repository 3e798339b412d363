"""Which evaluation samples to look at: drawn at construction with Python's `random`, which
the program never seeds (each process draws its own)."""

import random


class Probe:
    def __init__(self, size, count=4):
        self.idx = random.sample(range(size), count)

    def pick(self, vx, vy):
        return vx[self.idx], vy[self.idx]
