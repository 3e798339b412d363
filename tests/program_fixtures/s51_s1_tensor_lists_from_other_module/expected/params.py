"""Trained tensors built in a module of their own."""
import torch
import torch.nn as nn


def make_extra():
    ps = [nn.Parameter(torch.ones(1)), nn.Parameter(torch.zeros(1))]
    return ps


def make_gains(n):
    gains = []
    for i in range(n):
        gains.append(nn.Parameter(torch.full((1,), 1.0 + i)))
    return gains
