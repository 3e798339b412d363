"""The entry does its work at module level (e3_diffusion's main_qm9.py): the loaders come
from another module's function called there, before main(). Migrated, ddp_setup() must run
before that call: the DistributedSampler the migration gives the training loader asks for
the process group (before: setup first thing in main(), "Default process group has not been
initialized" on every rank at the call)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


torch.manual_seed(0)
loaders = data.make_loaders(4)
model = nn.Linear(3, 1)


def main():
    net = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loaders["train"]:
            loss = ((net(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    ddp_print(f"weights {model.weight.sum().item():.4f}")


if __name__ == "__main__":
    main()
