import torch
from torch.utils.data import DataLoader, TensorDataset


def get(args, seed):
    g = torch.Generator().manual_seed(seed)
    data = TensorDataset(
        torch.randn(args.samples, 6, generator=g), torch.randn(args.samples, 2, generator=g)
    )
    return DataLoader(data, batch_size=args.batch_size), data
