import random

import torch


class BatchAugs:
    def __init__(self, p):
        self.p = p

    def __call__(self, x, y, epoch):
        if epoch < 1 or random.random() > self.p:
            return x, y, False
        return self._mix(x, y) + (True,)

    def _mix(self, x, y):
        lam = torch.rand(x.size(0), 1)
        idx = torch.randperm(x.size(0))
        return lam * x + (1 - lam) * x[idx], lam * y + (1 - lam) * y[idx]
