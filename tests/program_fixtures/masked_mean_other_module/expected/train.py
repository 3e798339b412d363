"""The loss of another module averages over a selection whose size the data decides:
DP043 there (fangchangma/self-supervised-depth-completion's MaskedMSELoss)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import criteria
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)


def main():
    ddp_setup()
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 1, 4, 4), torch.rand(16, 1, 4, 4) - 0.5)
    model = DistributedDataParallel(
        nn.Conv2d(1, 1, 3, padding=1).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    crit = criteria.MaskedMSELoss()
    for inp, gt in DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    ):
        loss = crit(model(inp), gt)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
