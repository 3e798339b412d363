import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from epochs import test, train_epoch


def main():
    ddp_setup()
    torch.manual_seed(0)
    dataloaders = data.retrieve_dataloaders(4)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    best = (1e9, -1)
    for epoch in range(3):
        train_epoch(model, dataloaders["train"], opt)
        val = test(model, dataloaders["valid"])
        tst = test(model, dataloaders["test"])
        if val < best[0]:
            best = (val, epoch)
        ddp_print("epoch %d Val loss %.6f Test loss %.6f" % (epoch, val, tst))
    ddp_print("best epoch %d val %.6f" % (best[1], best[0]))


if __name__ == "__main__":
    main()
