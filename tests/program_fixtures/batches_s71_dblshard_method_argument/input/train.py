import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fitting import Fitter


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    features = torch.randn(24, 5, generator=g)
    labels = features[:, :2] * 0.5 - 1.0
    train_set = TensorDataset(features, labels)
    batches = DataLoader(train_set, batch_size=6, shuffle=False)
    net = nn.DataParallel(nn.Linear(5, 2))
    fitter = Fitter(net, torch.optim.SGD(net.parameters(), lr=0.05))
    steps = fitter.epoch(batches, passes=2)
    print("steps", steps)
    print("weights", round(net.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
