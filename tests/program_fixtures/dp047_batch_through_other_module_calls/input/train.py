"""A loader batch made numpy by another module's augmentation functions and back (hansen7/OcCo@4a236a6's
`--data_aug` path): DP047 says the calls are not read, given this rank's part; stop 45 said
"the same rows on every rank; every rank gets all of it"."""

import sys

import torch
import torch.nn as nn

from augment import random_point_dropout, random_scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x).mean(1)


def main(augment):
    model = nn.DataParallel(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(16, 5, 3), torch.randint(0, 2, (16,)))
    loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
    for points, target in loader:
        if augment:
            points = random_point_dropout(points.data.numpy())
            points[:, :, :3] = random_scale(points[:, :, :3])
            points[:, :, :3] = random_scale(points[:, :, :3])
            points = torch.Tensor(points)
        points = points.transpose(2, 1).float()
        loss = nn.functional.cross_entropy(model(points.transpose(2, 1)), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main("--augment" in sys.argv)
