"""e2e case (issue 19): a P x K identity sampler (reid-strong-baseline's RandomIdentitySampler
shape): batches of P=4 identities x K=4 instances, drawn with Python's `random`. Every
sample is its own id (identity = id // 8); each rank's batches are kept in E2E_DIGEST."""

import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler


class People(Dataset):
    def __len__(self):
        return 96

    def __getitem__(self, index):
        return torch.tensor([index / 96.0, 1.0]), index // 8, index


class RandomIdentitySampler(Sampler):
    def __init__(self, dataset, num_instances=4):
        self.ids = {}
        for index in range(len(dataset)):
            self.ids.setdefault(index // 8, []).append(index)
        self.k = num_instances

    def __iter__(self):
        groups = []
        for members in self.ids.values():
            members = random.sample(members, len(members))
            groups += [members[i : i + self.k] for i in range(0, len(members), self.k)]
        random.shuffle(groups)
        return iter([index for group in groups for index in group])

    def __len__(self):
        return 96


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 12)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    data = People()
    loader = DataLoader(data, batch_size=16, sampler=RandomIdentitySampler(data, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = []
    for epoch in range(2):
        for x, y, ids in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            if epoch == 0:
                batches.append(ids.tolist())
    E2E_DIGEST.update(batches=batches, length=len(loader), batch_size=loader.batch_size)


if __name__ == "__main__":
    main()
