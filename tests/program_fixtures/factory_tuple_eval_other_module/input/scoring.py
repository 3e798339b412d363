"""Evaluation in a module of its own: outputs kept at each sample's index, in an array of
the dataset's size."""

import torch


def embed_all(net, loader):
    out = torch.zeros(len(loader.dataset), 1)
    with torch.no_grad():
        for x, _, ids in loader:
            out[ids] = net(x)
    return out
