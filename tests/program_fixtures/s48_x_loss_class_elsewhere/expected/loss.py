import torch
import torch.nn as nn


class VAELoss(nn.Module):
    """A reconstruction mean and a KL sum over the batch, returned apart."""

    def forward(self, out, target, mu, log_var, weight):
        rec = torch.mean(torch.abs(out - target))
        kl = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
        penalty = 1e-4 * weight.pow(2).sum()
        return rec, kl, penalty


def vae_loss(out, target, mu, log_var):
    rec = (out - target).pow(2).mean()
    return rec + 0.1 * (mu.pow(2) + log_var.exp() - log_var - 1).sum()


def hand_mean(out, target):
    return (out - target).pow(2).sum() / out.size(0)
