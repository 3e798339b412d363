import torch
import torch.nn as nn


class ElboCriterion(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.rec_fn = nn.L1Loss()
        self.weight = weight

    def regulariser(self, mean, log_sigma):
        inner = 1 + 2 * log_sigma - mean ** 2 - torch.exp(2 * log_sigma)
        return self.weight * -0.5 * inner.sum()

    def forward(self, target, recon, mean, log_sigma):
        rec = self.rec_fn(recon, target)
        reg = self.regulariser(mean, log_sigma)
        return rec + reg
