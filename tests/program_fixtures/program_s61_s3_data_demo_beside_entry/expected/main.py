"""The training entry: it picks its dataset class by a name the command line gives
(`python main.py dataset.feeder.Feeder`), as VIPL-SLP/VAC_CSLR@71f3e03 does from its config."""

import importlib
import sys

import torch
from torch import nn

import utils
from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup


def import_class(name):
    module, attr = name.rsplit(".", 1)
    return getattr(importlib.import_module(module), attr)


def main(feeder_name):
    ddp_setup()
    torch.manual_seed(0)
    mover = utils.Mover()
    feeder = import_class(feeder_name)(16)
    loader = torch.utils.data.DataLoader(
        feeder,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(feeder, shuffle=False),
    )
    model = mover.model_to_device(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        x = mover.data_to_device(x)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("weights", round(float(utils.bare(model).weight.detach().sum()), 4))


if __name__ == "__main__":
    main(sys.argv[1])
