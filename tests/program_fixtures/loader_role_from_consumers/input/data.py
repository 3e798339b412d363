"""The loader factory of class v1-F (stop 39, BangLiu/QANet-PyTorch@0ce11ca's
data_loader/SQuAD.py): one function builds the training and the evaluation loaders."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def get_loader(x, y, batch_size, shuffle=True):
    dataset = TensorDataset(x, y, torch.arange(len(x)))
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
