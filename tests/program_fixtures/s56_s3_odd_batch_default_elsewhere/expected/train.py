# An odd global batch a command-line default sets, read in another module (r4-A of stop 55,
# the `args.batch_size` spelling of dragen1860/LearningToCompare-Pytorch@be5fbbe's
# `batchsz = 3`). DataParallel scattered the 3 samples of a step 2+1; on 2 processes each
# rank loads 1, the global batch 2. DP184 at the loader, for the default (the command line
# may give another); --epochs' odd default names no loader's batch: nothing said.
import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=3, help="samples a step, all GPUs")
parser.add_argument("--epochs", type=int, default=3)


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
