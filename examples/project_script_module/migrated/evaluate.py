"""The network, its data and its evaluation; run on its own, it evaluates a fresh network
(the training script imports everything from here with a star import)."""

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x):
        return self.layers(x)


def make_set(size, seed):
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 2, (size,), generator=generator)
    points = torch.randn(size, 8, generator=generator) + labels[:, None] * 1.5
    return TensorDataset(points, labels)


# dp2ddp: DP015 evaluation metrics not reduced
def accuracy(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


if __name__ == "__main__":
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    loader = DataLoader(make_set(96, 2), batch_size=32)
    score = accuracy(model, loader)
    ddp_print(f"final accuracy of a fresh network {score:.3f}")
