"""Control: the entry builds the Generator and trains it: its BatchNorm statistics are
per process under DDP; DP008 stays."""

import torch
import torch.nn as nn

from generator import Generator


def main():
    model = nn.DataParallel(Generator())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(8, 8)
    for step in range(2):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
