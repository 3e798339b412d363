"""An in-batch contrastive loss computed inside forward, its targets cached on the module.

The forward scores each row against every row of its batch (the batch's other rows are the
negatives) and caches the target indices in a dict on `self` under a key that does not
name the batch size, so the cache assumes every forward sees the rows of the first. On one
device every forward sees the whole batch of 8; on 2 GPUs every DataParallel replica its 4.
The loss comes back as one value per replica, which the script averages (`.mean()`).
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PairScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6), nn.Tanh())
        self.loss = nn.CrossEntropyLoss()
        self.targets = {}

    def forward(self, views):
        left, right = self.embed(views[:, 0]), self.embed(views[:, 1])
        scores = left @ right.t()
        width = views.size(-1)
        if width not in self.targets:
            self.targets[width] = torch.arange(scores.size(0))
        wanted = self.targets[width]
        hits = (scores.argmax(1) == wanted).float().mean()
        return self.loss(scores, wanted).unsqueeze(0), hits.unsqueeze(0)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    train = DataLoader(TensorDataset(torch.randn(24, 2, 5, generator=g)), batch_size=8)
    model = nn.DataParallel(PairScorer())
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    for (views,) in train:
        loss, hits = model(views)
        loss = loss.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.6f}")
    print(f"final weight sum {model.module.embed[0].weight.sum().item():.6f}")


if __name__ == "__main__":
    main()
