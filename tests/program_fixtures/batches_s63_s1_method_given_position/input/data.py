import torch


class Batches:
    def __init__(self, n, bs):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, 4, generator=g)
        self.y = torch.randn(n, 1, generator=g)
        self.bs = bs

    def get(self, i):
        return self.x[i * self.bs:(i + 1) * self.bs], self.y[i * self.bs:(i + 1) * self.bs]


class Device:
    def __init__(self, device):
        self.device = device

    def data_to_device(self, t):
        return t.to(self.device)
