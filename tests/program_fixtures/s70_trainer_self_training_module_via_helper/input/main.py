import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from agent import Agent


def run_training(model, loader, epochs):
    model.train_epochs(loader, epochs)


def main():
    torch.manual_seed(1)
    inputs = torch.randn(80, 5)
    targets = (inputs * torch.arange(1.0, 6.0)).sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=20, shuffle=False)
    agent = nn.DataParallel(Agent(5))
    run_training(agent.module, loader, 2)
    body = agent.module.body.weight.detach()
    value = agent.module.value.weight.detach()
    print(f"body {body.abs().sum().item():.6f} value {value.abs().sum().item():.6f}")


if __name__ == "__main__":
    main()
