import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print


def build():
    return DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)


def loader():
    g = torch.Generator().manual_seed(4)
    data = TensorDataset(torch.randn(24, 3, generator=g), torch.randn(24, 1, generator=g))
    return DataLoader(
        data,
        batch_size=ddp_per_rank_batch(6),
        sampler=DistributedSampler(data, shuffle=True),
    )


def fit(model, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = loader()
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        ddp_print(f"epoch {epoch}")
