"""Figures shown through logging helpers of another module of the program, called through the
module (`log_utils.log_values(...)`, `utils.log_running(...)` by a package's star re-export):
each is an output path as print is (issue 28 item 4; wouterkool/attention-learn-to-route@c9abf41
logs each batch through `utils/log_utils.log_values`). Running figures summed over this rank's
batches: DP030 through each, as for print (before, a call through the module was not seen as
printing: no DP030). The per-batch figure `log_values(cost, step)` prints (rank 0's share of
the batch, as `print(loss.item())` does): guarded like print, and, like print, not warned."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils
from utils import log_utils


def train_batch(model, opt, x, step):
    cost = model(x).squeeze(-1) ** 2
    loss = cost.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    log_utils.log_values(cost, step)
    return loss


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=8)
    for epoch in range(2):
        total = 0.0
        seen = 0
        for step, (x,) in enumerate(loader):
            loss = train_batch(model, opt, x, step)
            total += loss.item() * x.size(0)
            seen += x.size(0)
            utils.log_running(step, total / seen)
        log_utils.log_epoch(epoch, total, seen)


if __name__ == "__main__":
    main()
