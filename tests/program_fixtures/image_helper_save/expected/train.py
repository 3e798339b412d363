"""Sample grids a helper of another module returns as a PIL image, saved with the
image's own `.save(path)`: a file write (rank 0's), as `Image.fromarray(x).save(path)`."""

import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from imaging import stitch_images


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(16, 8))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(8, 8), nn.Sigmoid()).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        fixed = torch.rand(4, 8)
    os.makedirs("samples", exist_ok=True)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = (model(x) - x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            images = stitch_images(model(fixed))
        if ddp_is_main():
            images.save(os.path.join("samples", "%03d.png" % epoch))


if __name__ == "__main__":
    main()
