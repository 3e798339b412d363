"""The datasets are chosen in utils.get_datasets(args) by `args.datasets`, a command-line
value: the program calls it once, here, with the parsed command line, so the condition is
the same on every rank and each download is made rank 0's first (ddp_rank0_first); no
DP065 (nblt/Sub-AT's utils.py, stop 63 s3)."""

import argparse

import torch
import torch.nn as nn

from utils import get_datasets

parser = argparse.ArgumentParser()
parser.add_argument("--datasets", default="CIFAR10")
parser.add_argument("--batch_size", type=int, default=8)


def main():
    global args
    args = parser.parse_args()
    loader = get_datasets(args)
    model = nn.DataParallel(nn.Linear(3072, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
