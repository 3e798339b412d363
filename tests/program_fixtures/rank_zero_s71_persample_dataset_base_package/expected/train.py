"""Round 24 (zsyOAOA/VDNet@599c153, datasets/DenoisingDatasets.py): a Dataset whose base class
is a torch Dataset of the package's `__init__` under a name without "Dataset" picks one of its
sample's files in `__getitem__` (`random.randint`). The pick is one sample's, this rank's data:
it stays each process's own, and as the program seeds Python's stream alike, DP067 says the
ranks draw alike (before: `ddp_rank0_value(random.randint, ...)`, rank 1's k-th sample took
rank 0's pick for another sample, through the store, and no DP067). The plain class `Probe`
of the same module picks a file every rank reads: its pick is still rank 0's."""
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
    ddp_setup,
)
from samples.frames import PickedFrames, Probe

ddp_setup()


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames")

if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    groups = [[f"{g}_{k}.txt" for k in range(2)] for g in range(8)]
    probe = Probe(ROOT).read()
    dataset = PickedFrames(ROOT, groups)
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
