"""A trainer imported by a name given on the command line: nothing in the project names it."""
import importlib
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def main(name):
    torch.manual_seed(0)
    data = TensorDataset(torch.arange(16.0).view(16, 1), torch.ones(16, 1))
    loader = DataLoader(data, batch_size=4, shuffle=True)
    importlib.import_module(name).Trainer(torch.nn.Linear(1, 1), loader).train()


if __name__ == "__main__":
    main(sys.argv[1])
