"""The program's loader factory, found through `sys.path.insert(0, ".")` of the entry."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(batch_size):
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(32, 4, generator=generator)
    y = x.sum(1, keepdim=True)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=False)
