"""Control: the entry draws the dataset's name on each rank (an unseeded random.choice)
before handing its command line to get_datasets: the condition may differ between ranks,
and ddp_rank0_first's barriers could wait for a rank that never comes; DP065 stays."""

import argparse
import random

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from utils import get_datasets

parser = argparse.ArgumentParser()
parser.add_argument("--datasets", default="CIFAR10")
parser.add_argument("--batch_size", type=int, default=8)


def main():
    ddp_setup()
    global args
    args = parser.parse_args()
    args.datasets = random.choice(["CIFAR10", "CIFAR100"])
    loader = get_datasets(args)
    model = DistributedDataParallel(
        nn.Linear(3072, 10).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
