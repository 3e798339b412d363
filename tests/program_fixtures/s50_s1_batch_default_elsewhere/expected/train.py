# The global batch a command-line default of 1 sets, read in another module (WenbinLee/
# DN4@440857b: `--episodeSize` default 1 in Train_DN4.py, `batch_size=opt.episodeSize` in
# dataset/general_dataloader.py; b3-C of stop 49). It cannot be divided between the ranks:
# DP133 at the loader (before: no migrate-time word).
import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

parser = argparse.ArgumentParser()
parser.add_argument("--episodeSize", type=int, default=1, help="episodes a batch")
parser.add_argument("--epochs", type=int, default=2)


def main():
    ddp_setup()
    opt = parser.parse_args()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = data.get_loader(opt)
    for epoch in range(opt.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
    ddp_print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
