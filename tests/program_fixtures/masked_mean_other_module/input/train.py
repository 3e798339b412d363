"""The loss of another module averages over a selection whose size the data decides:
DP043 there (fangchangma/self-supervised-depth-completion's MaskedMSELoss)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import criteria


def main():
    data = TensorDataset(torch.randn(16, 1, 4, 4), torch.rand(16, 1, 4, 4) - 0.5)
    model = nn.DataParallel(nn.Conv2d(1, 1, 3, padding=1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    crit = criteria.MaskedMSELoss()
    for inp, gt in DataLoader(data, batch_size=4):
        loss = crit(model(inp), gt)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
