"""verify case, original: an InstanceNorm that tracks running statistics (stop 48, helper vv).

VITA-Group/DeblurGANv2@c16bd9f5's full discriminator normalises with
`InstanceNorm2d(track_running_stats=True)`: each sample with its own statistics (the output
does not depend on the batch), but the running mean and variance average the batch's
per-sample statistics. Under DataParallel the model keeps replica 0's, from its chunk; DDP
broadcasts rank 0's, from its share. verify's one-process original once ran this forward
over the whole batch (only BatchNorm made it run chunk by chunk), so its running statistics
were the whole batch's: "a buffer went apart first", NOT EQUIVALENT for a right migration.
The generator is judged by the critic in eval mode, with those running statistics, so its
updates follow them a step later.

`--loss-in-forward`: the critic returns its loss (a 0-dim tensor DataParallel would gather
into a vector), so verify runs its forward over the whole batch, and only the running
statistics' update is split as replica 0's (the probe of F.instance_norm).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Critic(nn.Module):
    def __init__(self, loss_in_forward):
        super().__init__()
        self.loss_in_forward = loss_in_forward
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = nn.InstanceNorm2d(8, track_running_stats=True)
        self.fc = nn.Linear(8, 2)

    def forward(self, x, targets):
        logits = self.fc(F.leaky_relu(self.norm(self.conv(x)), 0.2).mean((2, 3)))
        return F.cross_entropy(logits, targets) if self.loss_in_forward else logits


def loss(critic, x, targets):
    out = critic(x, targets)
    return out if out.dim() == 0 else F.cross_entropy(out, targets)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loss-in-forward", action="store_true")
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(32, 3, 8, 8, generator=generator)
    y = torch.randint(0, 2, (32,), generator=generator)
    critic, gen = Critic(args.loss_in_forward), nn.Conv2d(3, 3, 3, padding=1)
    if torch.cuda.device_count() > 1:
        critic, gen = nn.DataParallel(critic), nn.DataParallel(gen)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    d_optimizer = torch.optim.SGD(critic.parameters(), lr=0.1, momentum=0.9)
    g_optimizer = torch.optim.SGD(gen.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(2):
        for inputs, targets in loader:
            critic.train()  # its running statistics follow the batch's per-sample ones
            d_optimizer.zero_grad()
            loss(critic, inputs, targets).backward()
            d_optimizer.step()
            critic.eval()  # the generator is judged with the running statistics
            g_optimizer.zero_grad()
            loss(critic, gen(inputs), 1 - targets).backward()
            g_optimizer.step()
        print(f"epoch {epoch}")


if __name__ == "__main__":
    main()
