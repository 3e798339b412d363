"""Batch sums another module's loss returns, scaled by a constant spelled as a call
(`.mul(0.1)`, `torch.mul(..., 0.01)`) or picked from the returned tuple by position
(`parts[1]`, then `pair[0]`): each said (DP004), as the bare term is (stop 48 helper y's
leftover: `0.1 * kl_sum(...)` was followed through `*` only, and a told element only through
an unpacking). The mean `pair[1]` is not said."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
)

from .loss import VAELoss, kl_sum


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(2, 6)

    def forward(self, x):
        h = self.enc(x)
        mu, log_var = h[:, :2], h[:, 2:]
        return self.dec(mu), mu, log_var


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 6))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    model = DistributedDataParallel(VAE().to(DEVICE), device_ids=DEVICE_IDS)
    criterion = VAELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for (x,) in loader:
            out, mu, log_var = model(x)
            parts = criterion(out, x, mu, log_var)
            pair = parts[1]
            loss = parts[0] + pair[0].mul(0.1) + torch.mul(kl_sum(mu, log_var), 0.01) + pair[1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
