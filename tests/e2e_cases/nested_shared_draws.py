"""e2e case: shared draws nested. A helper permutes indices for a Subset (its draw shared
inside it), and the statement calling it is shared too, with the next draw of the same
block: the training order drawn after the helper returned.

Every sample is its own id: epoch 0's training ids are kept in E2E_DIGEST (recorded per
rank by tests/e2e_driver.py). Were the inner block to give rank 1 back the states it had on
entering it, rank 1 would draw the order from before the helper's draw, rank 0 after it:
the ranks would shard two different orders (ids trained twice, others never).
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Subset


class Points(Dataset):
    def __len__(self):
        return 120

    def __getitem__(self, index):
        return torch.tensor([index / 120.0, 1.0]), torch.tensor([float(index % 3)]), index


E2E_DIGEST = {}


def hold_out(dataset, n_val):
    perm = torch.randperm(len(dataset)).tolist()
    return Subset(dataset, perm[n_val:]), Subset(dataset, perm[:n_val])


def main():
    model = nn.Linear(2, 1)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    pool, val_set = hold_out(Points(), 24)
    order = torch.randperm(len(pool)).tolist()
    train_set = Subset(pool, order)
    train_loader = DataLoader(train_set, batch_size=16)
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
