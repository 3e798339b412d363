"""Batches a helper draws from sequence files: which files (random.sample of names a
directory listing gave) and, per file, where its window starts (random.randrange)."""

import os
import random

import numpy as np

from _dp2ddp import ddp_rank0_value


class Sequences:
    def __init__(self, root):
        self.files = sorted(
            os.path.join(root, n) for n in ddp_rank0_value(os.listdir, root)
        )

    def batch(self, batch_size, length):
        picks = ddp_rank0_value(random.sample, self.files, k=batch_size)
        return np.array([self._window(f, length) for f in picks])

    def xy(self, batch_size, length):
        data = self.batch(batch_size, length + 1)
        return data[:, :-1], data[:, 1:]

    def _window(self, fname, length):
        with open(fname) as f:
            seq = [int(t) for t in f.read().split()]
        start = random.randrange(0, len(seq) - length)
        return seq[start : start + length]
