import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import torch
from torch.utils.data import DataLoader, TensorDataset

from mylib.trainer import Trainer

if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    model = Trainer(torch.nn.Linear(4, 1)).fit(DataLoader(data, batch_size=4))
    print("weights", round(model.weight.sum().item(), 4))
