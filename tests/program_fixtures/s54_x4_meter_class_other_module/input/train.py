"""Epoch figures kept in meter classes of another module (util/meters.py; one re-exported
by util/__init__.py), read after the loop and printed: each rank's are its share's; summed
over the ranks they are the original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from util import StepMeter, meters
from util.meters import AverageMeter


def main():
    torch.manual_seed(0)
    x = torch.arange(64.0).view(16, 4) / 64
    y = (x * x).sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        losses = AverageMeter()
        steps = meters.BatchMeter()
        again = StepMeter()
        for inputs, targets in loader:
            loss = nn.functional.mse_loss(model(inputs), targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.update(loss.item(), inputs.size(0))
            steps.update(loss.item())
            again.update(loss.item())
        print("epoch %d loss %.4f mean %.4f" % (epoch, losses.avg, steps.mean))
        print("re-exported %.4f" % again.mean)
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
