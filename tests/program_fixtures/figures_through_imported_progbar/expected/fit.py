"""Per-batch losses handed to the program's progress bar of another module, which keeps
their running means and prints them: rank 0's share once migrated, DP030 at the call, as
for `print` of a running sum."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from progress import Progbar


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 32).view(16, 2)
    dataset = TensorDataset(x, x.sum(1, keepdim=True) * 3)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(2, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    progbar = Progbar(16)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        # dp2ddp: DP030 running figure printed from this rank's shard
        progbar.add(len(x), values=[("loss", loss.item())])


if __name__ == "__main__":
    main()
