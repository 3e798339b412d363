"""A loss class of another module: a mean over the valid pixels (a masked selection)."""
import torch.nn as nn


class MaskedMSELoss(nn.Module):
    def forward(self, pred, target):
        valid_mask = (target > 0).detach()
        diff = target - pred
        diff = diff[valid_mask]
        return (diff**2).mean()
