import torch
from torch.utils.data import DataLoader, TensorDataset


def get_loader(opt):
    x = torch.arange(48.0).reshape(12, 4) / 10
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    return DataLoader(dataset, batch_size=opt.batch_size, shuffle=True)
