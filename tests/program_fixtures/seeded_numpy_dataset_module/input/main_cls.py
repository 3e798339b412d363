import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import Clouds
from util import set_seed


def main():
    set_seed(1)
    torch.manual_seed(1)
    model = nn.DataParallel(nn.Linear(1, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Clouds(16), batch_size=8, shuffle=True, num_workers=0)
    for epoch in range(2):
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
