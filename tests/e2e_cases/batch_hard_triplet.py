"""e2e case (issue 19): a batch-hard triplet loss computed outside the model (the
reid-strong-baseline shape): the hardest positive and negative of each sample are mined
over the whole batch's distance matrix. DataParallel's loss saw the gathered batch of 16;
each DDP rank mines among its 8, so the updates differ: verify says NOT EQUIVALENT and
names this function (DP040)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def batch_hard_triplet(embeddings, labels, margin=1.0):
    distances = torch.cdist(embeddings, embeddings)
    same = labels[:, None] == labels[None, :]
    hardest_positive = (distances * same).max(dim=1).values
    hardest_negative = (distances + 1e6 * same).min(dim=1).values
    return torch.relu(hardest_positive - hardest_negative + margin).mean()


def main():
    torch.manual_seed(0)
    features = torch.randn(32, 4)
    labels = torch.arange(32) // 4
    model = nn.Linear(4, 3)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = DataLoader(TensorDataset(features, labels), batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            batch_hard_triplet(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    main()
