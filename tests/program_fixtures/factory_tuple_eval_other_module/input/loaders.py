"""One loader factory, and a function returning the training and the validation loader
it builds (the shape of class v3-H of stop 41)."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def single(n, offset, batch_size, shuffle):
    x = torch.linspace(0, 1, n * 3).reshape(n, 3) + offset
    dataset = TensorDataset(x, x.sum(1, keepdim=True), torch.arange(n))
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)


def pair(batch_size):
    return single(8, 0.0, batch_size, True), single(6, 0.5, 2, False)
