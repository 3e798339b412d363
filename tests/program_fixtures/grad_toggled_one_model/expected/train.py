"""Three wraps; the toggle (utils.py) reaches only the critic's, through train_fns.py's
closure over the networks train.py hands it: DP041 and find_unused_parameters=True at
netD's wrap alone. netG's wrap has every parameter used in each of its backward passes,
and the feature network's (built around a network of its own) is never toggled: neither
gets the flag (before: all three did)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import train_fns
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
    ddp_wrap_trainable,
)
from models import D, Features, G


def main():
    ddp_setup()
    torch.manual_seed(0)
    netG = DistributedDataParallel(G().to(DEVICE), device_ids=DEVICE_IDS)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    netD = ddp_wrap_trainable(
        D().to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    feats = DistributedDataParallel(
        Features(nn.Linear(6, 3)).eval().to(DEVICE), device_ids=DEVICE_IDS
    )
    opt_g = torch.optim.SGD(netG.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(netD.parameters(), lr=0.1)
    dataset = TensorDataset(torch.linspace(-1, 1, 96).view(16, 6))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        train_fns.train_epoch(netG, netD, opt_g, opt_d, loader)
    with torch.no_grad():
        score = feats(netG(torch.ones(2, 4))).sum().item()
    digest = [round(float(p.detach().sum()), 5) for p in netG.parameters()]
    digest += [round(float(p.detach().sum()), 5) for p in netD.parameters()]
    ddp_print("final", digest, round(score, 4))
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main()
