"""Evaluates item 1 of loaders.pair() only."""

import torch

import loaders
from _dp2ddp import ddp_print


def report(net):
    _, held = loaders.pair(4)
    net.eval()
    with torch.no_grad():
        for x, _, _ in held:
            ddp_print(net(x).sum().item())
