import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from learner import PairLearner


def main():
    torch.manual_seed(0)
    inputs = torch.randn(96, 6)
    targets = inputs[:, :3].sum(1, keepdim=True) - inputs[:, 3:].sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=24, shuffle=False)
    learner = PairLearner(6, 5)
    learner = nn.DataParallel(learner)
    learner.module.fit(loader, epochs=3)
    head = learner.module.head.weight.detach()
    encoder = learner.module.encoder[0].weight.detach()
    print(f"head {head.abs().sum().item():.6f} encoder {encoder.abs().sum().item():.6f}")


if __name__ == "__main__":
    main()
