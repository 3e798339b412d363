"""Figures shown through logging helpers of another module of the program, called through the
module (`log_utils.log_values(...)`, `utils.log_running(...)` by a package's star re-export):
each is an output path as print is (issue 28 item 4; wouterkool/attention-learn-to-route@c9abf41
logs each batch through `utils/log_utils.log_values`). Running figures summed over this rank's
batches: DP030 through each, as for print (before, a call through the module was not seen as
printing: no DP030). The per-batch figure `log_values(cost, step)` prints (rank 0's share of
the batch, as `print(loss.item())` does): guarded like print, and, like print, not warned."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
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
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(16, 4))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        total = 0.0
        seen = 0
        for step, (x,) in enumerate(loader):
            loss = train_batch(model, opt, x, step)
            total += loss.item() * x.size(0)
            seen += x.size(0)
            # dp2ddp: DP030 running figure printed from this rank's shard
            utils.log_running(step, total / seen)
        # dp2ddp: DP030 running figure printed from this rank's shard
        log_utils.log_epoch(epoch, total, seen)


if __name__ == "__main__":
    main()
