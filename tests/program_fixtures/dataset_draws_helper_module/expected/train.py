"""The Dataset calls another module's augmentation per sample, numpy seeded alike in main():
every rank's k-th sample gets the same draw (DP067 at the call in __getitem__)."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from augment import augment


class Augmented(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32).view(n, 1).repeat(1, 4)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return augment(self.x[i])


def main():
    ddp_setup()
    np.random.seed(0)
    dataset = Augmented(16)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
