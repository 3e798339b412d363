import argparse

import torch
import torch.nn as nn

import losses

parser = argparse.ArgumentParser()
parser.add_argument("--loss", default="Alignment")
parser.add_argument("--penalty", default="magnitude")
args = parser.parse_args()

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(6, 4))
criterion = getattr(losses, args.loss)()
penalty = losses.TABLE[args.penalty]()
plain = getattr(nn, "MSELoss")()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(8, 6)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=8)
for epoch in range(2):
    for (x,) in loader:
        z = model(x)
        loss = criterion(z) + penalty(z) + plain(z, torch.zeros_like(z))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("loss %.4f" % loss.item())
