"""One wrapped module holding a generator and its critic; the loop alternates their steps,
switching the other's gradients off with a helper of another module (utils.toggle_grad)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    DdpDistributedSampler,
    ddp_draw_share,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
    ddp_wrap_trainable,
)


class GD(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Linear(4, 6)
        self.d = nn.Linear(6, 1)

    def forward(self, z, x):
        return self.d(self.g(z)), self.d(x)


def main():
    ddp_setup()
    torch.manual_seed(0)
    gd = GD()
    opt_g = torch.optim.SGD(gd.g.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(gd.d.parameters(), lr=0.1)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = ddp_wrap_trainable(
        gd.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(16, 6))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for (x,) in loader:
        z = ddp_draw_share(lambda: torch.randn(x.size(0) * WORLD_SIZE, 4))
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
    ddp_print("final", digest)
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main()
