"""verify case, original: a dataset drawing its masks from its own `random.Random(seed)`.

Issue 28: migrated right, yet verify said NOT EQUIVALENT ("global batch differs ... samples
missing") and blamed the DataLoader: the dataset drew in reading order, the original a
whole batch, each rank its half.
"""

import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class MaskedPoints(Dataset):
    """Fixed points; each read masks a random feature, drawn from the dataset's own RNG."""

    def __init__(self, n=64, seed=0):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 8, generator=generator)
        self.y = self.x.sum(dim=1, keepdim=True).sin()
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        x = self.x[index].clone()
        x[self.rng.randrange(8)] = 0.0
        return x, self.y[index]


def main():
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = DataLoader(MaskedPoints(), batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
