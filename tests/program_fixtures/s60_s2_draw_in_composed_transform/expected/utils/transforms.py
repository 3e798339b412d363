"""Per-sample transforms, composed in the entry and run by the Dataset of utils/frames.py."""
import random

import numpy as np


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for transform in self.transforms:
            sample = transform(sample)
        return sample


class RandomFrame:
    """One of the sample's frames, picked at random, read from its file."""

    def __call__(self, sample):
        path = random.choice(sample["frames"])
        return self.read(path), sample["target"]

    def read(self, path):
        return np.loadtxt(path, dtype=np.float32)


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, sample):
        frame, target = sample
        return frame * self.factor, target
