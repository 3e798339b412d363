"""The trainer: a fixed validation batch fetched once before the loop for sample outputs."""

import torch
import torch.nn as nn

import utils
from data import Fetcher, Numbered


class Solver:
    def __init__(self):
        self.net = nn.DataParallel(nn.Linear(3, 1))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def train(self, loaders, iters=4):
        fetcher = Fetcher(loaders["src"], loaders["src"])
        fetcher_val = Fetcher(loaders["val"], None, 8)
        fetcher_test = Fetcher(latent_dim=8, loader=loaders["val"])
        inputs_test = next(fetcher_test)
        inputs_val = next(fetcher_val)
        numbered = Numbered(loaders["val"])
        count = next(numbered)
        for i in range(iters):
            inputs = next(fetcher)
            loss = nn.functional.mse_loss(self.net(inputs["x"]), inputs["y"])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            with torch.no_grad():
                out = self.net(inputs_test["x"])
                print(count)
            torch.save(out, "sample_%d.pt" % i)
            utils.debug_image(self.net, inputs=inputs_val, step=i)
