"""A classification task: its config and how to build and step its network."""

import importlib

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS

CONFIG = {
    "data_provider": "feeds.synthetic",
    "network": "nets.mlp.MLP",
    "batch_size": 32,
    "lr": 0.05,
}


def import_class(dotted):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def make_network(config):
    network = import_class(config["network"])()
    model = DistributedDataParallel(network.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9)
    return model, optimizer


def train_step(model, optimizer, x, y):
    device = next(model.parameters()).device
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
