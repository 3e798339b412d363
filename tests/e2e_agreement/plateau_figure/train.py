"""A ReduceLROnPlateau stepped with a figure over samples each process draws in another
module (issue 29): rank 0's figure on every rank, so both ranks drop the rate at the same
epochs and end with the same weights (E2E_DIGEST, compared across the ranks)."""

import torch
import torch.nn as nn
from probe import Probe
from torch.utils.data import DataLoader, TensorDataset


def evaluate(net, vx, vy):
    x, y = Probe(len(vx)).pick(vx, vy)
    with torch.no_grad():
        return nn.functional.mse_loss(net(x), y).item()


def main():
    global E2E_DIGEST
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    vx, vy = torch.randn(64, 4), torch.randn(64, 1) * 3
    loader = DataLoader(data, batch_size=8, shuffle=True)
    net = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    for _ in range(8):
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step(evaluate(net, vx, vy))
    lr = optimizer.param_groups[0]["lr"]
    E2E_DIGEST = [lr, *(round(v, 6) for v in net.module.weight.flatten().tolist())]


if __name__ == "__main__":
    main()
