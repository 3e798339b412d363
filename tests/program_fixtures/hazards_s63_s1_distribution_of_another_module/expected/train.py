import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    ddp_draw_share,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from util import standard_normal

local_normal = torch.distributions.Normal(torch.zeros(4), torch.ones(4))


def jitter(n):
    return standard_normal.sample((n, 4)) * 0.1


def wobble():
    return local_normal.sample() * 0.1


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            scale = standard_normal.sample().abs()
            shift = local_normal.sample() * 0.1
            noise = ddp_draw_share(
                lambda: standard_normal.sample((x.size(0) * WORLD_SIZE, 4))
            ) * 0.01
            out = model(x * scale + shift + jitter(1) + wobble() + noise)
            loss = nn.functional.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    ddp_print("weight", round(model.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
