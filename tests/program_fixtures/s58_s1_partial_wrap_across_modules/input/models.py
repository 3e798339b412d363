"""A model DataParallel wraps only a part of, and a loss whose score function is wrapped."""

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(x)


class Twin(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.DataParallel(Encoder())

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
        self.score = nn.DataParallel(Scorer())

    def forward(self, src, trg):
        copies = max(torch.cuda.device_count(), 1)
        scores = self.score(src, trg[None].repeat(copies, 1, 1))
        labels = torch.arange(src.size(0))
        return nn.functional.cross_entropy(scores, labels)
