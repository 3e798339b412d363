"""A solver handed the model and the program's flag: it unwraps by the flag to save."""

import os
import tempfile

import torch
import torch.nn as nn

from _dp2ddp import ddp_is_main


class Solver:
    def __init__(self, model, loader, args):
        self.model = model
        self.loader = loader
        self.use_cuda = args.use_cuda
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(self):
        for epoch in range(2):
            for x, y in self.loader:
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        bare = self.model.module
        package = bare.serialize()
        if ddp_is_main():
            torch.save(
                package, os.path.join(tempfile.gettempdir(), "s73_flag_unwrap.pt")
            )
            print("weights %.6f" % package["weights"])
