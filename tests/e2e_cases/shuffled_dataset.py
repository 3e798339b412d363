"""e2e case (issue 18): a Dataset that shuffles its sample list in __init__, unseeded.

The shape of ronghuaiyang/arcface-pytorch's data/dataset.py (`np.random.permutation(imgs)`)
and of `random.shuffle(self.files)`. Each sample is its own id, so the ranks' shards can be
compared: epoch 0's ids are kept in E2E_DIGEST, which tests/e2e_driver.py records per rank.
"""

import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Faces(Dataset):
    def __init__(self, n=96):
        imgs = [i for i in range(n)]
        self.imgs = np.random.permutation(imgs)
        self.names = [f"{i}.png" for i in range(n)]
        random.shuffle(self.names)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, index):
        sample = int(self.imgs[index])
        return torch.tensor([sample / 96.0, 1.0]), torch.tensor([float(sample % 2)]), sample


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 1)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = DataLoader(Faces(), batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    seen = []
    for epoch in range(2):
        for x, y, ids in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if epoch == 0:
                seen += ids.tolist()
    E2E_DIGEST.update(train=seen)


if __name__ == "__main__":
    main()
