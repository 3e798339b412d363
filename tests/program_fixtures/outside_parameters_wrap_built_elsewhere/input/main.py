"""Class v3-B of stop 46 (okankop/Driver-Anomaly-Detection@6f7f251's layout): the wrap is
made by models.generate_model(), and a head built here beside it goes to the same optimizer;
`head` is also the name of train_step()'s parameter (another variable)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models import generate_model


def train_step(model, head, xb, yb, opt):
    loss = nn.functional.binary_cross_entropy_with_logits(head(model(xb)), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


torch.manual_seed(0)
x = torch.randn(32, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = generate_model()
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=0.5)
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
for epoch in range(2):
    for xb, yb in loader:
        train_step(model, head, xb, yb, opt)
torch.save(head.state_dict(), "head.pth")
E2E_DIGEST = [round(v, 4) for v in head.weight.flatten().tolist()]
