"""Trainers made of a mixin of this module and the base of another."""

from torch import nn

from framework import Framework


class CrossEntropy:
    def loss(self, x, y):
        return nn.functional.cross_entropy(self.model(x), y)


class Wide(CrossEntropy, Framework):
    def build(self):
        return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
