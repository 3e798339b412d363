import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import engine

data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
engine.train(model, loader, optimizer, 2)
