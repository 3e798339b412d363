"""Losses of the program: a mean, and a smoothness term summed over the batch and divided
by one sample's element count (round 16, IDKiro/CBDNet-pytorch@09a2e55 fixed_loss)."""
import torch.nn as nn
import torch.nn.functional as F


class RestoreLoss(nn.Module):
    def forward(self, out, target, est):
        l2 = F.mse_loss(out, target)
        h = est.size()[2]
        h_tv = (est[:, :, 1:, :] - est[:, :, : h - 1, :]).pow(2).sum()
        tv = h_tv / self._count(est[:, :, 1:, :])
        total = l2 + 0.05 * tv
        return total

    def _count(self, t):
        return t.size()[1] * t.size()[2] * t.size()[3]


class MeanLoss(nn.Module):
    def forward(self, out, target):
        per_row = (out - target).pow(2).sum()
        return per_row / out.size(0)
