import torch
import torch.nn as nn

import data
from epochs import test, train_epoch


def main():
    torch.manual_seed(0)
    dataloaders = data.retrieve_dataloaders(4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    best = (1e9, -1)
    for epoch in range(3):
        train_epoch(model, dataloaders["train"], opt)
        val = test(model, dataloaders["valid"])
        tst = test(model, dataloaders["test"])
        if val < best[0]:
            best = (val, epoch)
        print("epoch %d Val loss %.6f Test loss %.6f" % (epoch, val, tst))
    print("best epoch %d val %.6f" % (best[1], best[0]))


if __name__ == "__main__":
    main()
