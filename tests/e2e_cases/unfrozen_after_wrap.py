"""e2e case (fresh round stop 30, helper s; class S5, real-world: tjddus9597/
Proxy-Anchor-CVPR2020@51db570, whose warm-up unfreezes frozen BatchNorm weights): the first
layer is frozen when the model is wrapped and unfrozen after the first epoch. DDP's reducer
was built without it; ddp_sync_frozen after the wrap averages its gradients once it trains.
Before: each rank trained that layer on its own half and the ranks drifted apart, silently.
The final weights are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def main():
    torch.manual_seed(0)
    data = TensorDataset(
        torch.linspace(-1, 1, 96).view(32, 3), torch.linspace(0, 1, 32).view(32, 1)
    )
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    for p in model[0].parameters():
        p.requires_grad = False
    model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        if epoch == 1:
            for p in model.module[0].parameters():
                p.requires_grad = True
        for x, y in DataLoader(data, batch_size=8):
            loss = (model(x) - y).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    E2E_DIGEST.extend(p.sum().item() for p in model.parameters())


if __name__ == "__main__":
    main()
