import torch
from torch.utils.data import DataLoader, TensorDataset

from models import create_model
from options import parse

opt = parse(is_train=True)
torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 8))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = create_model(opt)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(opt.niter):
    for x, y in loader:
        optimizer.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
    print("epoch %d loss %.4f" % (epoch, loss.item()))
E2E_DIGEST = [round(p.sum().item(), 6) for p in model.parameters()]
