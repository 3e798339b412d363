"""v3-E (stop 42, jnhwkim/ban-vqa@ef4cc36's main.py -> train.py): the entry hands the
training function of another module its model and loader."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainlib import train

model = nn.DataParallel(nn.Linear(4, 1))
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4, shuffle=True)
train(model, loader, 3)
