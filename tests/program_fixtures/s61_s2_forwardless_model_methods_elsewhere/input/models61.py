import torch
import torch.nn as nn


class DataParallelPassthrough(torch.nn.DataParallel):
    """Wraps a module in DataParallel and passes its attributes through."""

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


class HetOnlyVAE(nn.Module):
    """No forward(): trained through encode() and decode() (tomodrgn's
    TiltSeriesHetOnlyVAE)."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 2)
        self.dec = nn.Linear(2, 4)

    def encode(self, x):
        return self.enc(x)

    def decode(self, z):
        return self.dec(z)

    def latent_size(self):
        return 2
