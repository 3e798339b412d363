"""The same learning-rate decision as eval_order_sets_lr, with numpy's global generator
seeded by the program: every rank draws the reader's order alike, so the figure stays each
rank's own (the same on all), unchanged."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from valreader import ValReader

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup


def evaluate(net, vx, vy):
    x, y = ValReader(vx, vy).first_batch()
    with torch.no_grad():
        return nn.functional.mse_loss(net(x), y).item()


def main():
    ddp_setup()
    global E2E_DIGEST
    torch.manual_seed(0)
    np.random.seed(0)
    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(32, 4, generator=g), torch.randn(32, 1, generator=g))
    vx, vy = torch.randn(64, 4, generator=g), torch.randn(64, 1, generator=g) * 3
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    net = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    lr = 0.1
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    val_loss_old = 1e6
    for epoch in range(8):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_loss = evaluate(net, vx, vy)
        if val_loss > 0.99 * val_loss_old:
            lr /= 2
            for group in optimizer.param_groups:
                group["lr"] = lr
        val_loss_old = val_loss
    E2E_DIGEST = [lr, *(round(v, 6) for v in net.module.weight.flatten().tolist())]


if __name__ == "__main__":
    main()
