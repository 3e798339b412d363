"""Epoch figures from per-batch lists and sums of a sharded loop, shown through
util.IOStream.cprint: DP030, as for print. `np.log` of a figure is no output, though the
program has a `log` function that prints."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_mean,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from util import IOStream


def main():
    ddp_setup()
    io = IOStream("run.log")
    with ddp_same_random():
        data = TensorDataset(torch.randn(64, 4), torch.randint(0, 3, (64,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        total = 0.0
        preds = []
        for x, y in loader:
            logits = model(x)
            loss = criterion(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            preds.append(logits.argmax(1).numpy())
        total = ddp_all_reduce_mean(total)
        preds = np.concatenate(preds)
        scale = np.log(total)
        # dp2ddp: DP030 running figure printed from this rank's shard
        io.cprint("epoch %d: loss %.4f, %d predictions" % (epoch, total, len(preds)))
        del scale
    io.close()


if __name__ == "__main__":
    main()
