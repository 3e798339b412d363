import torch
import torch.nn as nn

from nets import *

torch.manual_seed(0)
model = nn.DataParallel(Mimic(nn.Linear(8, 4), nn.Linear(8, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.utils.data.TensorDataset(torch.randn(16, 8), torch.randint(0, 4, (16,)))
for x, y in torch.utils.data.DataLoader(data, batch_size=4):
    loss = model(x, y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
