import random


class RandomScale:
    """The program's own augmentation: a factor drawn from Python's `random` per sample."""

    def __call__(self, x):
        return x * random.uniform(0.5, 1.5)
