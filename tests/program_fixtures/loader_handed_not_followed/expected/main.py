"""Loaders handed to a class of another module (runner.py) that maps its methods over them:
no loop there is proved to train on them or to evaluate them, so their roles are not decided
silently by their shuffle flags: DP084 at each (class v1-F of stop 39, where unproved). The
shuffled one is sharded as training data, the one in order left whole, as before."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from runner import Runner


def main():
    ddp_setup()
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    # dp2ddp: DP011, DP084
    batches = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
    )
    # dp2ddp: DP084
    held_out = DataLoader(data, batch_size=8)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    Runner(model, optimizer, batches, held_out).run()


if __name__ == "__main__":
    main()
