"""A third entry (issue 16): it saves itself, in its epoch loop, and then reads the file
through utils.load_ckpt(), a loading function of another module: the save keeps a
ddp_barrier() after it (before, only a torch.load in this module itself earned one)."""
import torch
import torch.nn as nn

from utils import load_ckpt


def main():
    net = nn.Linear(2, 2)
    model = nn.DataParallel(net)
    for epoch in range(2):
        torch.save(net.state_dict(), "b.pth")
    load_ckpt(net, "b.pth")


if __name__ == "__main__":
    main()
