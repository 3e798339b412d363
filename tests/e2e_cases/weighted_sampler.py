"""e2e case (issue 19): a WeightedRandomSampler (class-balanced sampling), drawn from torch's
generator: without replacement, one epoch is 90 of the 96 samples, in weighted order, in
batches of 16 with drop_last (5 batches: the last 10 dropped on every rank alike). Each
rank's batches and `loader.batch_size` (read back by programs) are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler


class Points(Dataset):
    def __len__(self):
        return 96

    def __getitem__(self, index):
        return torch.tensor([index / 96.0, 1.0]), index % 3, index


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 3)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    weights = torch.tensor([1.0 + (i % 3) for i in range(96)])
    sampler = WeightedRandomSampler(weights, num_samples=90, replacement=False)
    loader = DataLoader(Points(), batch_size=16, sampler=sampler, drop_last=True)
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
