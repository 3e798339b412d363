"""The network is picked by name through a factory: its class is not known statically, and
a module of the program leaves a layer without a gradient on some paths (DP041)."""

import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from models import get_network


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", default="pose")
    args = parser.parse_args()
    model = get_network(args.network)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = DistributedDataParallel(
        model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = TensorDataset(torch.randn(32, 6), torch.randn(32, 1))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        ddp_print("epoch", epoch)


if __name__ == "__main__":
    main()
