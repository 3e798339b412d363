"""e2e case (issue 18): `random_split` without a generator, the usual train/validation split.

Every sample is its own id: epoch 0's training ids and the ids of the validation set are
kept in E2E_DIGEST (recorded per rank by tests/e2e_driver.py), so a test can check that the
ranks' training shards are disjoint, cover the training set, and that no rank trains on
another rank's validation samples.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split


class Points(Dataset):
    def __len__(self):
        return 120

    def __getitem__(self, index):
        return torch.tensor([index / 120.0, 1.0]), torch.tensor([float(index % 3)]), index


E2E_DIGEST = {}


def main():
    model = nn.Linear(2, 1)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    train_set, val_set = random_split(Points(), [96, 24])
    train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    seen = []
    for epoch in range(2):
        for x, y, ids in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if epoch == 0:
                seen += ids.tolist()
    held_out = [val_set[i][2] for i in range(len(val_set))]
    E2E_DIGEST.update(train=seen, val=held_out)


if __name__ == "__main__":
    main()
