"""Round 16 (IDKiro/CBDNet-pytorch@09a2e55, dataset/loader.py): a Dataset's `__getitem__`
draws one of its sample's files (`random.choice(self.groups[index])`) and hands the name to
another module's reader. The draw names this rank's sample, not a file the ranks share: it
stays each process's own (before: `ddp_rank0_value(random.choice, ...)`, rank 1's sample
took rank 0's pick, another sample's file, and waited 60 s for the store where rank 0 drew
less often). A draw handed to the reader outside per-sample code is still rank 0's."""
import os
import random

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_rank0_value,
    ddp_setup,
)
from data import Frames
from utils.io import read_frame

ddp_setup()


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames")

if __name__ == "__main__":
    torch.manual_seed(0)
    groups = [[f"{g}_{k}.txt" for k in range(2)] for g in range(8)]
    probe = read_frame(ROOT, ddp_rank0_value(random.choice, groups[0]))
    dataset = Frames(ROOT, groups)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    own = True
    for epoch in range(2):
        for frame, mine in loader:
            own = own and bool(mine.all())
            loss = (model(frame).squeeze(1) - frame[:, 3]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    if ddp_is_main():
        print("own files", own, "probe", probe[0])
        print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
