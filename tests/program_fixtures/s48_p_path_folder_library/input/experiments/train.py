"""Stop 48 (helper p): the entry puts a library folder with no __init__.py on sys.path and
imports its module; another entry (evaluate.py, at the project's root) does the same."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer import fit, report

if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    model = fit(torch.nn.Linear(4, 1), DataLoader(data, batch_size=4))
    report("weights", model.weight.sum().item())
