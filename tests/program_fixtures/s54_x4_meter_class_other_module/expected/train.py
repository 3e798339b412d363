"""Epoch figures kept in meter classes of another module (util/meters.py; one re-exported
by util/__init__.py), read after the loop and printed: each rank's are its share's; summed
over the ranks they are the original's."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_all_reduce_sum,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from util import StepMeter, meters
from util.meters import AverageMeter


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.arange(64.0).view(16, 4) / 64
    y = (x * x).sum(1, keepdim=True)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
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
        losses.count, losses.sum = ddp_all_reduce_sum(losses.count, losses.sum)
        losses.avg = losses.sum / losses.count
        steps.steps, steps.total = ddp_all_reduce_sum(steps.steps, steps.total)
        steps.mean = steps.total / steps.steps
        again.steps, again.total = ddp_all_reduce_sum(again.steps, again.total)
        again.mean = again.total / again.steps
        if ddp_is_main():
            print("epoch %d loss %.4f mean %.4f" % (epoch, losses.avg, steps.mean))
            print("re-exported %.4f" % again.mean)
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
