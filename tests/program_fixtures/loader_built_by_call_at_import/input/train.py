"""The entry does its work at module level (e3_diffusion's main_qm9.py): the loaders come
from another module's function called there, before main(). Migrated, ddp_setup() must run
before that call: the DistributedSampler the migration gives the training loader asks for
the process group (before: setup first thing in main(), "Default process group has not been
initialized" on every rank at the call)."""

import torch
import torch.nn as nn

import data

torch.manual_seed(0)
loaders = data.make_loaders(4)
model = nn.Linear(3, 1)


def main():
    net = nn.DataParallel(model)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loaders["train"]:
            loss = ((net(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print(f"weights {model.weight.sum().item():.4f}")


if __name__ == "__main__":
    main()
