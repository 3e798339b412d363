"""Class R1 (yuqinie98/PatchTST@204c21e, docs/real-world.md stop 30, helper y4): running
figures over a training loader that a factory of another module builds and the migration
shards there. Each rank's loop sees its share of the batches, so a figure kept in a list or
summed and then printed is rank 0's share (DP030), and one divided by the dataset's size is
summed over the ranks after its loop, as for a loader built in this module; also over a loader
the factory's module binds at its top level and this one imports by name. lr 0: the figures
depend on the data alone, not on the order the sampler draws it in."""

import numpy as np
import torch
import torch.nn as nn

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_all_reduce_sum, ddp_print, ddp_setup

ddp_setup()
from data_factory import data_provider, shared_loader
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)


class Exp:
    """The experiment layout: `_get_data` hands the factory's (dataset, loader) on."""

    def __init__(self):
        model = nn.Linear(1, 1, bias=False)
        with torch.no_grad():
            model.weight.fill_(1.0)
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

    def _get_data(self, flag):
        data_set, data_loader = data_provider(flag)
        return data_set, data_loader

    def train(self):
        train_data, train_loader = self._get_data(flag="train")
        opt = torch.optim.SGD(self.model.parameters(), lr=0.0)
        train_loss = []
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = ((self.model(xb) - yb) ** 2).mean()
            train_loss.append(loss.item())
            loss.backward()
            opt.step()
        train_loss = np.average(train_loss)
        # dp2ddp: DP030 running figure printed from this rank's shard
        ddp_print("Train Loss: {0:.4f}".format(train_loss))


model = nn.Linear(1, 1, bias=False)
with torch.no_grad():
    model.weight.fill_(1.0)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.0)
train_data, train_loader = data_provider("train")
total = 0.0
for xb, yb in train_loader:
    opt.zero_grad()
    loss = ((model(xb) - yb) ** 2).mean()
    loss.backward()
    opt.step()
    total += loss.item()
# dp2ddp: DP030 running figure printed from this rank's shard
ddp_print("summed batch losses", total)


def epoch_loss(model, opt):
    _, loader = data_provider("train")
    running = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
        running += loss.item() * xb.size(0)
    running = ddp_all_reduce_sum(running)
    return running / len(loader.dataset)


epoch = epoch_loss(model, opt)
ddp_print("epoch loss", round(epoch, 4))
E2E_DIGEST = [round(epoch, 5)]
Exp().train()
seen = 0
for xb, yb in shared_loader:
    opt.zero_grad()
    ((model(xb) - yb) ** 2).mean().backward()
    opt.step()
    seen += xb.size(0)
# dp2ddp: DP030 running figure printed from this rank's shard
ddp_print("samples seen", seen)
