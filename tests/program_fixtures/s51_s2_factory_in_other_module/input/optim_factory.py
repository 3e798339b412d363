"""The program's optimizer factory (stop 51 s2)."""

import torch


def build_optimizer(lr, model):
    return torch.optim.SGD(model.parameters(), lr=lr)
