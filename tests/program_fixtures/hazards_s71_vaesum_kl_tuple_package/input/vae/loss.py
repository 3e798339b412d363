import torch
import torch.nn as nn


class VAELoss(nn.Module):
    def __init__(self, beta, reduction="mean"):
        super().__init__()
        self.recon = nn.MSELoss(reduction=reduction)
        self.beta = beta

    def kld(self, mu, logvar):
        per_row = logvar.exp() - logvar - 1 + mu.pow(2)
        return self.beta / 2 * torch.sum(per_row)

    def forward(self, x, x_hat, mu, logvar):
        rec, kl = self.recon(x_hat, x), self.kld(mu, logvar)
        return rec + kl, rec, kl


def loss_function(recon_x, x, mu, logvar):
    bce = nn.functional.mse_loss(recon_x, x)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld, bce, kld
