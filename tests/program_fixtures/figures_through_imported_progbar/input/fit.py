"""Per-batch losses handed to the program's progress bar of another module, which keeps
their running means and prints them: rank 0's share once migrated, DP030 at the call, as
for `print` of a running sum."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from progress import Progbar


def main():
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 32).view(16, 2)
    loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True) * 3), batch_size=4)
    model = nn.DataParallel(nn.Linear(2, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    progbar = Progbar(16)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        progbar.add(len(x), values=[("loss", loss.item())])


if __name__ == "__main__":
    main()
