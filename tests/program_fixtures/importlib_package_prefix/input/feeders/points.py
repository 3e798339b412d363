import torch
from torch.utils.data import DataLoader, TensorDataset


def loader(batch_size):
    dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 2))
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
