import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from models.nets import build

ddp_setup()


p = argparse.ArgumentParser()
p.add_argument("--multi", type=int, default=0)
p.add_argument("--lr", type=float, default=0.1)
args = p.parse_args()
torch.manual_seed(0)


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model, params = build(args)
        # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
        self.model = DistributedDataParallel(
            self.model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
        )
        self.optimizer = torch.optim.SGD(params=params, lr=args.lr)
        with ddp_same_random():
            ds = TensorDataset(torch.randn(32, 8), torch.randint(0, 3, (32,)))
        self.loader = DataLoader(
            ds,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(ds, shuffle=False),
        )
        self.crit = nn.CrossEntropyLoss()

    def train_one_epoch(self):
        for x, y in self.loader:
            pred = self.model(x)
            if isinstance(pred, tuple):
                pred_2 = pred[1]
                pred = pred[0]
            loss = self.crit(pred, y)
            if self.args.multi:
                loss = loss + 0.1 * self.crit(pred_2, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()


t = Trainer(args)
for epoch in range(2):
    ddp_print("epoch", epoch, "loss %.6f" % t.train_one_epoch())
ddp_print("PARAMSUM %.6f" % sum(p.sum().item() for p in t.model.parameters()))
