import torch
from torch.utils.data import DataLoader, TensorDataset


def make_images(count):
    generator = torch.Generator().manual_seed(7)
    return TensorDataset(torch.randn(count, 6, generator=generator))


def get_data_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=False)
