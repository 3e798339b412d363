"""A line logged inside the argument of the call of main() (`main(get_args())`, fresh6
class Z4: subword-qac's "device: cpu, n_gpu: 2"): the argument runs before main's body,
so the setup comes before the call and rank 1 logs nothing."""

import argparse
import logging
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
logger = logging.getLogger(__name__)


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    logger.info(f"epochs: {args.epochs}")
    return args


def main(args):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    logger.info("done")


if __name__ == "__main__":
    main(get_args())
