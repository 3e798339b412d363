"""The program's own augmentation: a per-sample draw from the process-wide generators."""

import random

import torch


class RandomJitter:
    """Scales a sample by a random factor, half of the time."""

    def __init__(self, p=0.5, scale=0.5):
        self.p = p
        self.scale = scale

    def __call__(self, x):
        if random.random() < self.p:
            return x * (1.0 + self.scale * torch.rand(1))
        return x
