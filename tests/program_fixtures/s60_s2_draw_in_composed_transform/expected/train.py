"""A per-sample draw in a transform class of another module (round 12 v4-C,
hzxie/Pix2Vox@0596d5e: utils/data_transforms.py's RandomBackground, composed in
core/train.py, run by utils/data_loaders.py's Dataset in the loader's workers): the pick
and the read of the picked file stay each process's own (before: `ddp_rank0_value(
random.choice, ...)` in utils/transforms.py, rank 1's sample took rank 0's pick)."""
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

import utils.transforms
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from utils.frames import Frames

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    transform = utils.transforms.Compose(
        [utils.transforms.RandomFrame(), utils.transforms.Scale(2.0)]
    )
    dataset = Frames(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames"), transform
    )
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        num_workers=2,
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for frame, target in loader:
            loss = (model(frame).squeeze(1) - target).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
