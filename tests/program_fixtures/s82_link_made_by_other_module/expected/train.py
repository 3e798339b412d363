"""Arrays written once, then linked as the current data by another module's helper, and
listed by a Dataset built right after: every rank must wait for rank 0's link."""
import os
import shutil

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_rank0_value,
    ddp_setup,
)
from folders import point_to

ddp_setup()


torch.manual_seed(0)


class Arrays(Dataset):
    def __init__(self, folder):
        self.paths = sorted(os.path.join(folder, n) for n in os.listdir(folder))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        return torch.from_numpy(np.load(self.paths[index]))


def run():
    current = point_to("versions/v1", "links")
    ddp_barrier()
    data = Arrays(current)
    net = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for x in DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    ):
        optimizer.zero_grad()
        net(x).pow(2).mean().backward()
        optimizer.step()
    ddp_print(
        "samples %d weights %.6f" % (
            len(data), sum(float(w.detach().sum()) for w in net.parameters())
        ),
    )


if __name__ == "__main__":
    if not ddp_rank0_value(os.path.isdir, "versions/v1"):
        os.makedirs("versions/v1", exist_ok=True)
        for index in range(12):
            if ddp_is_main():
                np.save(
                    f"versions/v1/{index:02d}.npy", np.full(3, index / 12, np.float32)
                )
    run()
