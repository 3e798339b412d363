"""Batches from an infinite generator that builds its own DataLoader and re-builds it when a
pass ends, the loop calling next() on it (rosinality/glow-pytorch@97081ff's `sample_data`).
The data pass shards the generator's loaders (a sampler, the per-rank batch size); the batch
that comes out of next() is then this rank's share already and must not be split again
(before: split twice, each rank trained on 2 samples of the original's 8, in silence).
Migrated, each rank's model gets 4 of each batch of 8 and the weights end as the
original's."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def sample_data(batch_size):
    dataset = TensorDataset(torch.arange(24, dtype=torch.float32).unsqueeze(1) / 24)
    loader = iter(DataLoader(dataset, shuffle=False, batch_size=batch_size))
    while True:
        try:
            yield next(loader)
        except StopIteration:
            loader = iter(DataLoader(dataset, shuffle=False, batch_size=batch_size))
            yield next(loader)


torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(1, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = iter(sample_data(8))
rows = 0
for _step in range(5):  # two passes over the 3 batches: the loader is re-built once
    (x,) = next(data)
    rows += x.size(0)
    loss = (model(x) - 2 * x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
# the rows this process's model got over the 5 steps (original 40, a rank 20), then weights
E2E_DIGEST = [rows, *(round(float(p.detach().sum()), 5) for p in model.parameters())]
print("final", E2E_DIGEST)
