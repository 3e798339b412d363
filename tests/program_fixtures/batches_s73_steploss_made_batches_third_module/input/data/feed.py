"""The data: a DataLoader over synthetic pairs, and its batches numbered."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(inputs, targets, batch_size):
    return DataLoader(TensorDataset(inputs, targets), batch_size=batch_size, shuffle=False)


def numbered_batches(loader):
    return enumerate(loader)
