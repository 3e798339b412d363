import random


def random_flip(x):
    """Flips the sample's sign with probability 0.5."""
    if random.random() < 0.5:
        return -x
    return x
