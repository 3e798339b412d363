import torch
from torch.utils.data import DataLoader, TensorDataset


def train_loader(batch_size):
    dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
