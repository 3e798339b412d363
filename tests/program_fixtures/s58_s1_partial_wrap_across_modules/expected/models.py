"""A model DataParallel wraps only a part of, and a loss whose score function is wrapped."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_wrap_trainable


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(x)


class Twin(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = DistributedDataParallel(
            Encoder().to(DEVICE), device_ids=DEVICE_IDS
        )

    def forward(self, a, b):
        return self.encoder(a), self.encoder(b)


class Pipeline(nn.Module):
    """Holds the partly wrapped model: its output is the whole gathered batch too."""

    def __init__(self):
        super().__init__()
        self.twin = Twin()

    def forward(self, a, b):
        za, zb = self.twin(a, b)
        return nn.functional.normalize(za, dim=1), nn.functional.normalize(zb, dim=1)


class Scorer(nn.Module):
    def __init__(self, temperature=2.0):
        super().__init__()
        self.temperature = temperature

    def forward(self, src, trg):
        return torch.mm(src, trg[0].t()) / self.temperature


class NceLoss(nn.Module):
    """Each replica scores its chunk of sources against every target of the batch."""

    def __init__(self):
        super().__init__()
        self.score = ddp_wrap_trainable(Scorer().to(DEVICE), device_ids=DEVICE_IDS)

    def forward(self, src, trg):
        copies = max(torch.cuda.device_count(), 1)
        # dp2ddp: DP115 code outside a partial wrap compares the whole batch's rows
        scores = self.score(src, trg[None].repeat(copies, 1, 1))
        labels = torch.arange(src.size(0))
        return nn.functional.cross_entropy(scores, labels)
