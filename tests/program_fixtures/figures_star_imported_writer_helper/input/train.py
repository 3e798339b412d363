"""An epoch's figures averaged over a sharded training loader and written only through a
helper that a star import brings (`from utils import *`, the helper in utils/experiment.py
behind utils/__init__.py's own star import): class v3-B of stop 39, the shape of
xy-guo/GwcNet@0987074's `save_scalars(logger, 'fulltest', avg_test_scalars, step)`. The mean
holds rank 0's batches only: DP030 at the call, as for a helper imported by name. The
per-batch figures written in the loop are the batch's own (not warned)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from utils import *


def train(model, data, epochs=2):
    loader = DataLoader(data, batch_size=4, shuffle=True)
    model = nn.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    logger = make_logger("runs")
    step = 0
    for epoch in range(epochs):
        avg = MeterDict()
        for x, y in loader:
            out = model(x)
            loss = (out - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            figures = {"loss": loss.item(), "l1": (out - y).abs().mean().item()}
            save_scalars(logger, "train", figures, step)
            avg.update(figures)
            step += 1
        save_scalars(logger, "epoch", avg.mean(), epoch)


if __name__ == "__main__":
    train(nn.Linear(4, 2), torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2)))
