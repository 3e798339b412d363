"""e2e case (stop 49 g2): a model with BatchNorm trained on batches the migration splits where
they enter the loop (ddp_shard_batch, no DistributedSampler: VITA-Group/DeblurGANv2@c16bd9f5's
trainer had its loader's batches split so), with a loss that compares the batch's rows. Rank
r's part of each batch is DataParallel's chunk r, so BatchNorm normalised the same samples in
both runs: verify names the loss (DP040) and no BatchNorm cause ("each DDP rank over its own
share, the original over its whole batch" was false: the original normalised per chunk)."""

import torch
import torch.nn as nn


def pairwise_loss(out):
    return torch.cdist(out, out).mean()


def main():
    torch.manual_seed(0)
    features = torch.randn(32, 4)
    batches = [features[i : i + 8] for i in range(0, 32, 8)]
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in batches:
        optimizer.zero_grad()
        pairwise_loss(model(x)).backward()
        optimizer.step()


if __name__ == "__main__":
    main()
