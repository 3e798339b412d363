"""e2e case (DP043): a mean cross-entropy with ignore_index (VainF/DeepLabV3Plus-Pytorch's
`CrossEntropyLoss(ignore_index=255, reduction='mean')`), where the ignored targets are not
spread evenly: within each batch of 16, the samples at positions 0, 2, 4 and 6 are ignored.
DataParallel's one loss averaged over the batch's 12 counted targets; under DDP each rank
averages over its own count (4 and 8 of 8 here, or 6 and 6, however the sampler splits) and
the ranks count equally, so the updates differ: verify says NOT EQUIVALENT and names this
loss (DP043)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    features = torch.randn(32, 4)
    labels = torch.arange(32) % 3
    labels[(torch.arange(32) % 16 < 8) & (torch.arange(32) % 2 == 0)] = 255
    model = nn.Linear(4, 3)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = DataLoader(TensorDataset(features, labels), batch_size=16, shuffle=False)
    criterion = nn.CrossEntropyLoss(ignore_index=255, reduction="mean")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    main()
