import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(batch_size):
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)


if __name__ == "__main__":
    # a self-test of this module: torchrun runs train.py, never this block
    loader = DataLoader(TensorDataset(torch.randn(4, 4)), batch_size=1)
    for (x,) in loader:
        print(x.cuda(0).shape)
