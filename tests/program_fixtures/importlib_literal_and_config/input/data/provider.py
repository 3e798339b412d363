import torch
from torch.utils.data import DataLoader, TensorDataset


def init(config):
    dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 2))
    loader = DataLoader(dataset, batch_size=config["train"]["batchsize"], shuffle=True)

    def gen(phase):
        return iter(loader)

    return gen
