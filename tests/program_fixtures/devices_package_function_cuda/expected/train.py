"""Stop 42's v1-A in its `from` form (ternaus/robot-surgery-segmentation@1d18157 spells
`import utils`; a package's module is imported `from pkg import utils`): `utils.cuda(x)`
calls the program's own function, kept as written (before: `utils.to(DEVICE)`, the
argument dropped, DP018 at the line, AttributeError on both ranks). `head`, an object a
`from` import binds, still moves with the tensor method."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from pkg import utils
from pkg.nets import head


def main():
    ddp_setup()
    torch.manual_seed(0)
    moved = head.to(DEVICE) if torch.cuda.is_available() else head
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(4, 2), moved).to(DEVICE), device_ids=DEVICE_IDS
    )
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randn(16, 2, generator=g))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(ds, shuffle=False),
    ):
        x, y = utils.cuda(x), utils.cuda(y)
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    digest = [round(float(p.detach().sum()), 5) for p in model.parameters()]
    ddp_print("final", digest)
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main()
