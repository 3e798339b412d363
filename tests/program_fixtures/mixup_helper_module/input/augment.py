"""CutMix: the box is drawn by a helper of this module."""
import random


def rand_box(width):
    start = random.randrange(width)
    return start, min(start + width // 2, width)


def cutmix(x):
    low, high = rand_box(x.size(1))
    x = x.clone()
    x[:, low:high] = x.flip(0)[:, low:high]
    return x
