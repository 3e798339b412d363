"""e2e case (validation round stop 32, class K3, real-world: CUT/CycleGAN's train.py): a
count of samples grown by each batch's size (`total_iters += batch_size`) decides when to
log and save (`if total_iters % print_freq == 0`) and is printed. Migrated, the increment
is `ddp_global_count(batch_size)`: the cadence and the counts are the original's. Before:
each rank counted its share, logs and saves came at half the rate, counts halved (silent).
The steps that log, the counts logged and the final weights are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def main():
    torch.manual_seed(0)
    x, y = torch.linspace(-1, 1, 96).view(32, 3), torch.linspace(0, 1, 32).view(32, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=8)
    net = nn.DataParallel(nn.Linear(3, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    total_iters, print_freq = 0, 16
    for epoch in range(2):
        for step, (x, y) in enumerate(loader):
            batch_size = x.size(0)
            total_iters += batch_size
            optimizer.zero_grad()
            loss = (net(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
            if total_iters % print_freq == 0:
                print(f"epoch {epoch} step {step} total_iters {total_iters}")
                E2E_DIGEST.extend([epoch * 10 + step, total_iters])
    E2E_DIGEST.append(total_iters)
    E2E_DIGEST.extend(p.sum().item() for p in net.parameters())


if __name__ == "__main__":
    main()
