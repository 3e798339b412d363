import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print


def make_loader():
    x = torch.arange(64.0).view(16, 4) / 64
    data = TensorDataset(x, x.sum(1, keepdim=True))
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )


def wgan_trainer(opt):
    generator = nn.Linear(4, 1)
    generator = DistributedDataParallel(generator.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)
    loader = make_loader()
    for epoch in range(opt.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = (generator(x) - y).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    ddp_print("wgan", generator.module.weight.sum().item())


def lsgan_trainer(opt):
    generator = nn.Linear(4, 1)
    generator = DistributedDataParallel(generator.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)
    loader = make_loader()
    for epoch in range(opt.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = ((generator(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    ddp_print("lsgan", generator.module.weight.sum().item())
