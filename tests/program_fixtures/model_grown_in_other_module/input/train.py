"""The trainer wraps the generator in its constructor and grows it through `.module` in a
method (DP098 names the class in models.py); a new wrap and optimizer are up to the user."""

import torch
import torch.nn as nn

from models import Generator


class Trainer:
    def __init__(self):
        self.G = nn.DataParallel(Generator())
        self.opt = torch.optim.Adam(self.G.parameters())

    def grow(self):
        self.G.module.grow_network()
        self.opt = torch.optim.Adam(self.G.parameters())

    def step(self, x):
        loss = self.G(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


def main():
    trainer = Trainer()
    x = torch.ones(8, 8)
    for stage in range(3):
        if stage:
            trainer.grow()
        trainer.step(x)


if __name__ == "__main__":
    main()
