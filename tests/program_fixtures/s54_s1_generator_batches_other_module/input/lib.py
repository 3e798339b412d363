import torch
from torch.utils.data import DataLoader, TensorDataset


def get_iter(batch_size):
    features = torch.arange(16, dtype=torch.float32).view(8, 2) / 8
    data = TensorDataset(features, torch.arange(8) % 3)
    loader = DataLoader(data, batch_size=batch_size, shuffle=False)
    while True:
        for x, label in loader:
            yield x, label
