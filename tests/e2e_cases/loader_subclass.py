"""e2e case (issue 19): a DataLoader subclass that builds its own sampler, the shape of
victoresque/pytorch-template's (and yassouali/pytorch-segmentation's) BaseDataLoader: a
SubsetRandomSampler over the training split, the other arguments passed with ** from a
dict. The training split (111 of 120) ends in a partial batch of 15, split 8 + 7 as
DataParallel scattered it. Each rank's batches and `loader.batch_size` are kept in
E2E_DIGEST."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.sampler import SubsetRandomSampler


class Points(Dataset):
    def __len__(self):
        return 120

    def __getitem__(self, index):
        index = int(index)
        return torch.tensor([index / 120.0, 1.0]), index % 2, index


class BaseDataLoader(DataLoader):
    def __init__(self, dataset, batch_size, validation_split=0.2):
        indices = np.arange(len(dataset))
        np.random.seed(0)
        np.random.shuffle(indices)
        cut = int(len(dataset) * validation_split)
        self.valid_indices = indices[:cut]
        self.sampler_ = SubsetRandomSampler(indices[cut:])
        self.init_kwargs = {"dataset": dataset, "batch_size": batch_size, "shuffle": False}
        super().__init__(sampler=self.sampler_, **self.init_kwargs)


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 2)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = BaseDataLoader(Points(), batch_size=16, validation_split=0.075)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = []
    for epoch in range(2):
        for x, y, ids in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            if epoch == 0:
                batches.append(ids.tolist())
    E2E_DIGEST.update(
        batches=batches,
        length=len(loader),
        batch_size=loader.batch_size,
        valid=sorted(loader.valid_indices.tolist()),
    )


if __name__ == "__main__":
    main()
