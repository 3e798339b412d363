"""e2e case (issue 19): a batch sampler by length buckets (numpy draws): each batch holds
samples of one length bucket (bucket = id // 24, batches of 12), a last partial batch per
bucket included. Each rank's batches are kept in E2E_DIGEST."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler


class Sentences(Dataset):
    def __len__(self):
        return 90

    def __getitem__(self, index):
        return torch.tensor([index / 90.0, float(index // 24)]), index % 2, index


class BucketBatchSampler(Sampler):
    def __init__(self, n, batch_size):
        self.buckets = [list(range(start, min(start + 24, n))) for start in range(0, n, 24)]
        self.batch_size = batch_size

    def __iter__(self):
        batches = []
        for bucket in self.buckets:
            order = np.random.permutation(bucket).tolist()
            batches += [
                order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)
            ]
        for position in np.random.permutation(len(batches)):
            yield batches[position]

    def __len__(self):
        return sum(-(-len(b) // self.batch_size) for b in self.buckets)


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 2)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = DataLoader(Sentences(), batch_sampler=BucketBatchSampler(90, 12))
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
