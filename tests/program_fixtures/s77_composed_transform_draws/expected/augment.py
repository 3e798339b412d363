"""The program's own transforms: a composition and a drawing jitter."""

import random


class Chain:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


class Jitter:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return x + self.scale * random.uniform(-1.0, 1.0)


class Halve:
    def __call__(self, x):
        return x / 2
