import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset


class ChunkBatchSampler(Sampler):
    def __init__(self, dataset, batch_size):
        self.n = len(dataset)
        self.batch_size = batch_size

    def __iter__(self):
        order = torch.randperm(self.n).tolist()
        for k in range(0, self.n, self.batch_size):
            yield order[k : k + self.batch_size]

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size


def load_dataset(batch_size):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=g)
    y = (x.sum(1) > 0).long()
    trainset = TensorDataset(x, y)
    valset = TensorDataset(x[:8], y[:8])
    get_train_sampler = lambda d: ChunkBatchSampler(d, batch_size)
    trainloader = DataLoader(trainset, batch_sampler=get_train_sampler(trainset))
    valloader = DataLoader(valset, batch_size=batch_size, shuffle=False)
    return trainloader, valloader
