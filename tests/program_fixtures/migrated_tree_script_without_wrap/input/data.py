import torch
from torch.utils.data import DataLoader, TensorDataset

from config import batch_size

torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))


def make_loader():
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
