"""e2e case (fresh round stop 31, helper h; class G1, real-world: chrischute/glow@faffa5b): a
warm-up schedule stepped by a count of samples grown by each batch's size (`seen +=
x.size(0)`; `sched.step(seen)`). Migrated, the increment is `ddp_global_count(x.size(0))`,
the global batch's size summed over the ranks. Before: each rank counted its share, the
learning rate was the original's at half the samples (DP088). 30 samples in batches of 8:
the last batch is 6 (3 per rank). The learning rates of every step and the final weights
are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def main():
    torch.manual_seed(0)
    x, y = torch.linspace(-1, 1, 90).view(30, 3), torch.linspace(0, 1, 30).view(30, 1)
    data = TensorDataset(x, y)
    loader = DataLoader(data, batch_size=8)
    net = nn.DataParallel(nn.Linear(3, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 50))
    seen = 0
    for _epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = (net(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
            seen += x.size(0)
            schedule.step(seen)
            E2E_DIGEST.append(optimizer.param_groups[0]["lr"])
    E2E_DIGEST.append(seen)
    E2E_DIGEST.extend(p.sum().item() for p in net.parameters())


if __name__ == "__main__":
    main()
