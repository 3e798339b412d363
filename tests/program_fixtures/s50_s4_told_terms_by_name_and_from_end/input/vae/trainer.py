"""Batch sums another module's loss returns, scaled by a factor given as a name in a call's
form (`kl_sum(...).mul(beta)`: `beta * kl_sum(...)` was followed, the call form only with a
number) or picked from the returned tuple by a position counted from its end (`parts[-1]`,
then `pair[0]`): each said (DP004), as the bare term is (stop 49 f1's leftovers; stop 50 s4).
The mean `parts[-1][-1]` is not said."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

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
    loader = DataLoader(data, batch_size=8, shuffle=False)
    model = nn.DataParallel(VAE())
    criterion = VAELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    beta = 0.01
    for epoch in range(2):
        for (x,) in loader:
            out, mu, log_var = model(x)
            parts = criterion(out, x, mu, log_var)
            pair = parts[-1]
            loss = parts[0] + 0.1 * pair[0] + kl_sum(mu, log_var).mul(beta) + parts[-1][-1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
