"""A network module imported by a computed name with no static end, `"nets." + opt.arch`:
the module wraps nothing and builds no loader, but it prints and appends to a history file.
Before stop 46 only the package's modules that wrap or build a loader were read: nets/logged.py
was not migrated, and under torchrun both ranks printed and appended (history.txt twice as
long), without a word. Now every module the name can be is read into the program."""
import argparse
import importlib

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="logged")
parser.add_argument("--batch_size", type=int, default=4)
opt = parser.parse_args()
torch.manual_seed(0)
net = importlib.import_module("nets." + opt.arch)
model = torch.nn.DataParallel(net.build(opt))
loader = DataLoader(
    TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=opt.batch_size, shuffle=True
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net.record(epoch)
