import torch
import torch.nn as nn

from fitting import Fitter


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    features = torch.randn(24, 5, generator=g)
    labels = features[:, :2] * 0.5 - 1.0
    # no DataLoader: a list of whole batches every process holds alike
    batches = [(features[i:i + 6], labels[i:i + 6]) for i in range(0, 24, 6)]
    net = nn.DataParallel(nn.Linear(5, 2))
    fitter = Fitter(net, torch.optim.SGD(net.parameters(), lr=0.05))
    steps = fitter.epoch(batches, passes=2)
    print("steps", steps)
    print("weights", round(net.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
