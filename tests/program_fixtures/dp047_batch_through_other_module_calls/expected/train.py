"""A loader batch made numpy by another module's augmentation functions and back (hansen7/OcCo@4a236a6's
`--data_aug` path): DP047 says the calls are not read, given this rank's part; stop 45 said
"the same rows on every rank; every rank gets all of it"."""

import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_same_random, ddp_setup
from augment import random_point_dropout, random_scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x).mean(1)


def main(augment):
    ddp_setup()
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = torch.utils.data.TensorDataset(
            torch.randn(16, 5, 3), torch.randint(0, 2, (16,))
        )
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )
    for points, target in loader:
        if augment:
            points = random_point_dropout(points.data.numpy())
            points[:, :, :3] = random_scale(points[:, :, :3])
            points[:, :, :3] = random_scale(points[:, :, :3])
            points = torch.Tensor(points)
        points = points.transpose(2, 1).float()
        # dp2ddp: DP047 a batch reaching the model is not proved to be this rank's part
        loss = nn.functional.cross_entropy(model(points.transpose(2, 1)), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main("--augment" in sys.argv)
