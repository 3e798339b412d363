"""The trainer: a fixed validation batch fetched once before the loop for sample outputs."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_is_main,
    ddp_print,
    ddp_same_random,
    ddp_unsharded_loader,
)
from data import Fetcher, Numbered


class Solver:
    def __init__(self):
        self.net = DistributedDataParallel(
            nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def train(self, loaders, iters=4):
        fetcher = Fetcher(loaders["src"], loaders["src"])
        fetcher_val = Fetcher(ddp_unsharded_loader(loaders["val"]), None, 8)
        fetcher_test = Fetcher(
            latent_dim=8, loader=ddp_unsharded_loader(loaders["val"])
        )
        with ddp_same_random():
            inputs_test = next(fetcher_test)
            inputs_val = next(fetcher_val)
        numbered = Numbered(loaders["val"])
        # dp2ddp: DP091
        count = next(numbered)
        for i in range(iters):
            inputs = next(fetcher)
            loss = nn.functional.mse_loss(self.net(inputs["x"]), inputs["y"])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            with torch.no_grad():
                out = self.net(inputs_test["x"])
                ddp_print(count)
            if ddp_is_main():
                torch.save(out, "sample_%d.pt" % i)
            utils.debug_image(self.net, inputs=inputs_val, step=i)
