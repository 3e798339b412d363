"""One wrapped module holding a generator and its critic; the loop alternates their steps,
switching the other's gradients off with a helper of another module (utils.toggle_grad)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils


class GD(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Linear(4, 6)
        self.d = nn.Linear(6, 1)

    def forward(self, z, x):
        return self.d(self.g(z)), self.d(x)


def main():
    torch.manual_seed(0)
    gd = GD()
    opt_g = torch.optim.SGD(gd.g.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(gd.d.parameters(), lr=0.1)
    model = nn.DataParallel(gd)
    loader = DataLoader(TensorDataset(torch.randn(16, 6)), batch_size=4)
    for (x,) in loader:
        z = torch.randn(x.size(0), 4)
        utils.toggle_grad(gd.g, False)
        utils.toggle_grad(gd.d, True)
        d_fake, d_real = model(z, x)
        opt_d.zero_grad()
        (d_fake.mean() - d_real.mean()).backward()
        opt_d.step()
        utils.toggle_grad(gd.g, True)
        utils.toggle_grad(gd.d, False)
        d_fake, _ = model(z, x)
        opt_g.zero_grad()
        (-d_fake.mean()).backward()
        opt_g.step()
    digest = [round(float(p.detach().sum()), 5) for p in gd.parameters()]
    print("final", digest)
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main()
