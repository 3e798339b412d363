import torch
from torch.utils.data import DataLoader, TensorDataset


def retrieve_dataloaders(batch_size):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(24, 4, generator=g)
    y = x.sum(1, keepdim=True)
    datasets = {"train": TensorDataset(x[:16], y[:16]), "valid": TensorDataset(x[16:20], y[16:20]),
                "test": TensorDataset(x[20:], y[20:])}
    dataloaders = {split: DataLoader(dataset, batch_size=batch_size,
                                     shuffle=(split == "train"))
                   for split, dataset in datasets.items()}
    return dataloaders
