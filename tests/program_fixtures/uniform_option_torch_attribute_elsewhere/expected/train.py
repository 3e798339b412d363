import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_rank0_first,
    ddp_setup,
)
from digits import Digits, Letters
from flows import Shift, describe

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--data", choices=["digits", "letters"], default="digits")
parser.add_argument("--layer_type", default="ignore")
parser.add_argument("--time_length", type=float, default=0.5)
args = parser.parse_args()

if args.layer_type == "blend":
    args.time_length = 1.0


def get_dataset(args):
    if args.data == "digits":
        train_set = ddp_rank0_first(Digits, root="./data", download=True)
    elif args.data == "letters":
        train_set = ddp_rank0_first(Letters, root="./data", download=True)
    return train_set


if __name__ == "__main__":
    torch.manual_seed(0)
    train_set = get_dataset(args)
    loader = torch.utils.data.DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(train_set, shuffle=False),
    )
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(4, 1), Shift(1)).to(DEVICE), device_ids=DEVICE_IDS
    )
    describe(model.module[1])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
    E2E_DIGEST = [float(train_set.fetched)]
