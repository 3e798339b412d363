import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from util import standard_normal

local_normal = torch.distributions.Normal(torch.zeros(4), torch.ones(4))


def jitter(n):
    return standard_normal.sample((n, 4)) * 0.1


def wobble():
    return local_normal.sample() * 0.1


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            scale = standard_normal.sample().abs()
            shift = local_normal.sample() * 0.1
            noise = standard_normal.sample((x.size(0), 4)) * 0.01
            out = model(x * scale + shift + jitter(1) + wobble() + noise)
            loss = nn.functional.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("weight", round(model.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
