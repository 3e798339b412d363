import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(n, batch_size, mode="train"):
    is_train = mode == "train"
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, 4, generator=g)
    y = (x[:, 0] + 0.5 * torch.randn(n, generator=g) > 0).long()
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=is_train)
