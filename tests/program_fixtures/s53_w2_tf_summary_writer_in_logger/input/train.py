import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from logger import Logger

torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = inputs.sum(1, keepdim=True)
loader = DataLoader(TensorDataset(inputs, targets), batch_size=8)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logger = Logger("logs", name="run")
for epoch in range(3):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    logger.scalar_summary("Train/loss", loss.item(), epoch)
print("weights %.4f" % model.module.weight.sum().item())
