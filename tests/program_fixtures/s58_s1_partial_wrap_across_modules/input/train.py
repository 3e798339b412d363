import torch
import torch.nn as nn

from models import NceLoss, Pipeline

torch.manual_seed(0)
model = Pipeline()
criterion = NceLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(8, 6)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=8)
for epoch in range(2):
    for (x,) in loader:
        z1, z2 = model(x, x + 0.1)
        distances = torch.cdist(z1, z2)
        loss = distances.diagonal().mean() - distances.mean() + criterion(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("loss %.4f" % loss.item())
print("weights %.4f" % sum(p.abs().sum().item() for p in model.parameters()))
