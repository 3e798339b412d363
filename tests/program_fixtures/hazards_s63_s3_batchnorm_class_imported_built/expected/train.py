"""Control: the entry builds the Generator and trains it: its BatchNorm statistics are
per process under DDP; DP008 stays."""

import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from generator import Generator


def main():
    ddp_setup()
    model = DistributedDataParallel(Generator().to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(8, 8)
    for step in range(2):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
