import torch
from torch.utils.data import DataLoader, TensorDataset


def get(n, seed):
    g = torch.Generator().manual_seed(seed)
    data = TensorDataset(torch.randn(n, 6, generator=g), torch.arange(n) % 3)
    return DataLoader(data, batch_size=4), data


if __name__ == "__main__":  # a self-test of its own, importing the trainer's options
    from trainer import options

    loader, _ = get(8, options()["seed"])
    for x, y in loader:
        print(x.shape)
