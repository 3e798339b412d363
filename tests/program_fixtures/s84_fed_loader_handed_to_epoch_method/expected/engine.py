"""A trainer of another module handed the entry's loader hands it on to its epoch method,
whose loop feeds a meter returned in a dict: DP030 (before: the loop one call down from the
fed method was no loader's, rank 0's figures unsaid)."""
import torch
import torch.nn as nn

from _dp2ddp import ddp_print


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, v, n=1):
        self.total += v * n
        self.count += n

    @property
    def avg(self):
        return self.total / self.count


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train_epoch(self, data):
        meter = Meter()
        info = {}
        for x, y in data:
            loss = nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            meter.update(loss.item())
        info["loss"] = meter.avg
        # dp2ddp: DP030 running figure printed from this rank's shard
        return info

    def train(self, train_data, epochs):
        for epoch in range(epochs):
            log = self.train_epoch(data=train_data)
            ddp_print(epoch, log)
