"""A fixed batch for a sample grid taken once from another module's loader factory (the
shape of class v2-C of stop 41), then training on loaders of the same factory. The grid
holds the whole batch (8 rows), as the original's."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_setup
from loading import make_loader

ddp_setup()


def show(net, dataset):
    net.eval()
    with torch.no_grad():
        grid, _ = next(iter(make_loader(dataset, 8, ddp_shard=False)))
        out = net(grid)
    net.train()
    if ddp_is_main():
        print(f"grid rows {out.size(0)} sum {grid.sum().item():.4f}")
        torch.save(out, "grid.pt")


torch.manual_seed(0)
dataset = TensorDataset(torch.linspace(0, 1, 24).reshape(8, 3), torch.linspace(0, 1, 8)[:, None])
net = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(2):
    show(net, dataset)
    for x, y in make_loader(dataset, 8):
        loss = nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
E2E_DIGEST = [round(p.sum().item(), 4) for p in net.module.parameters()]
