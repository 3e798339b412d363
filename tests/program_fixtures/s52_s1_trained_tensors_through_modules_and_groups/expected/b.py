"""Trained tensors built in a module of their own: a list, and a plain base class's (one,
and an nn.ParameterList of two)."""
import torch
import torch.nn as nn


def build():
    ps = [nn.Parameter(torch.ones(1)), nn.Parameter(torch.zeros(1))]
    return ps


class Base:
    def __init__(self):
        self.gain = nn.Parameter(torch.full((1,), 2.0))
        self.shift = nn.ParameterList([nn.Parameter(torch.zeros(1)) for _ in range(2)])
