"""A third entry (issue 16): it saves itself, in its epoch loop, and then reads the file
through utils.load_ckpt(), a loading function of another module: the save keeps a
ddp_barrier() after it (before, only a torch.load in this module itself earned one)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_barrier, ddp_is_main, ddp_setup
from utils import load_ckpt


def main():
    ddp_setup()
    net = nn.Linear(2, 2)
    model = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
    for epoch in range(2):
        if ddp_is_main():
            torch.save(net.state_dict(), "b.pth")
        ddp_barrier()
    load_ckpt(net, "b.pth")


if __name__ == "__main__":
    main()
