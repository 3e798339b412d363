"""A one-device training script: it never wraps its model with DataParallel."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from utils import unwrap

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 2)), batch_size=4, shuffle=True)
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("loss", loss.item())
torch.save(unwrap(model).state_dict(), "model.pt")
