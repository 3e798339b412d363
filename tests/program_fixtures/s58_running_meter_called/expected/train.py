import logging

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_setup
from meters_lib import AverageMeter, CountingLoss, TopOneAccuracy

loss_container = AverageMeter(name="loss")
accuracy = TopOneAccuracy()


def train(model, loader, optimizer, criterion):
    loss_container.reset()
    accuracy.reset()
    for x, y in loader:
        optimizer.zero_grad()
        output = model(x)
        loss = nn.functional.cross_entropy(output, y)
        loss.backward()
        optimizer.step()
        epoch_loss = loss_container(loss.item())
        epoch_acc = accuracy.update(output, y)
        last = criterion(output[:, :1], y)
    if ddp_is_main():
        # dp2ddp: DP030 running figure printed from this rank's shard
        logging.info("loss %.4f", epoch_loss)
        # dp2ddp: DP030 running figure printed from this rank's shard
        print("accuracy %.2f last %.4f" % (epoch_acc, last.item()))


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        train(model, loader, optimizer, CountingLoss())


if __name__ == "__main__":
    main()
