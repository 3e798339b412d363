import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_discard_path,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from scored import ScoredPairs

ddp_setup()


torch.manual_seed(0)
inputs = torch.randn(32, 5)
targets = torch.randn(32, 1)
net = DistributedDataParallel(
    nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
sgd = torch.optim.SGD(net.parameters(), lr=0.05)
pairs = ScoredPairs(inputs, targets)
loader = DataLoader(
    pairs,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(pairs, shuffle=False),
)


def one_epoch(epoch):
    pairs.scores_file = os.path.join(".", "scores.txt")
    with torch.no_grad():
        with open(
            pairs.scores_file if ddp_is_main() else ddp_discard_path(), "w"
        ) as out:
            out.write(" ".join("%.6f" % v for v in net(inputs)[:, 0].tolist()))
        ddp_barrier()
    for a, b in loader:
        err = nn.functional.mse_loss(net(a), b)
        sgd.zero_grad()
        err.backward()
        sgd.step()


for epoch in range(3):
    one_epoch(epoch)
ddp_print(
    "PARAMSUM %.6f" % sum(p.detach().double().sum().item() for p in net.parameters())
)
