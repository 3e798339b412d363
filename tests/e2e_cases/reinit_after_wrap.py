"""e2e case (issue 19): weights re-drawn in place after the wrap from a generator seeded
per process (astorfi/cor-gan seeds from an unseeded draw, then `model.apply(weights_init)`
after wrapping). DDP copied rank 0's weights at the wrap only: without the broadcast dp2ddp
inserts after the re-initialisation, the ranks would train different models. The final
weights are kept in E2E_DIGEST."""

import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.normal_(0.0, 0.1)


E2E_DIGEST = {}


def main():
    torch.manual_seed(os.getpid())  # another seed in every process
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.apply(weights_init)
    data = TensorDataset(torch.linspace(0, 1, 48).view(16, 3), torch.arange(16) % 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _epoch in range(2):
        for x, y in DataLoader(data, batch_size=8):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    E2E_DIGEST.update(weights=[p.sum().item() for p in model.parameters()])


if __name__ == "__main__":
    main()
