"""The entry of s62_s1_dataset_by_runtime_name_draws (stop 62 s1; found by stop 61 s3): the
dataset module is imported by a name the command line gives
(`importlib.import_module(args.dataset)`, named nowhere in the code), and the project's datasets/toy.py draws its
split from torch's generator, which nothing seeds. Read by no program, its draw is each
rank's own if it is the module imported: DP131 at the import names it (before: no
warning; each rank built a different split and the sampler sharded different data)."""
import argparse
import importlib

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)  # `--dataset datasets.toy`
    args = parser.parse_args()
    data = importlib.import_module(args.dataset).Data(16)
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
