import torch
import torch.nn as nn


class VAELoss(nn.Module):
    """A reconstruction mean, then a KL sum over the batch and a mean, in a nested tuple."""

    def forward(self, out, target, mu, log_var):
        rec = torch.mean(torch.abs(out - target))
        kl = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
        mse = (out - target).pow(2).mean()
        return rec, (kl, mse)


def kl_sum(mu, log_var):
    return -0.5 * (1 + log_var - mu.pow(2) - log_var.exp()).sum()
