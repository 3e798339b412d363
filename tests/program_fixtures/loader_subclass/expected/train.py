import argparse

import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data import PairLoader, make_set


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--shuffle", type=int, default=1)
    args = parser.parse_args()
    model = DistributedDataParallel(
        torch.nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = PairLoader(make_set(64), batch_size=8, shuffle=args.shuffle)
    valid_loader = PairLoader(make_set(16), batch_size=8)
    for epoch in range(2):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        with torch.no_grad():
            total = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in valid_loader)
        ddp_print(epoch, total)


if __name__ == "__main__":
    main()
