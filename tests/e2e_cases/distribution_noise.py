"""Noise for the batch drawn through `torch.distributions` objects with one seed for every
rank (class G1, the shape of GAN_stability's `zdist.sample((batch_size,))`): a Normal
sampled for the loader's global batch, a Uniform's `rsample` for this rank's batch
(`x.size(0)`). Seeded alike, both ranks would draw the same codes, the first one 8 rows
beside a batch of 4. Migrated, each is drawn for the global batch on rank 0's stream and
each rank keeps its rows: E2E_DIGEST is the first step's codes, row by row, so rank 0's and
rank 1's differ, have this rank's batch of rows, and together are the original's."""

import torch
import torch.nn as nn
from torch import distributions
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
batch_size = 8
loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=batch_size, drop_last=True)
G = nn.DataParallel(nn.Linear(2, 4))
D = nn.DataParallel(nn.Linear(4, 1))
zdist = distributions.Normal(torch.zeros(2), torch.ones(2))
udist = distributions.Uniform(-torch.ones(2), torch.ones(2))
opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.1)
first: list[float] = []
for epoch in range(2):
    for (x,) in loader:
        z = zdist.sample((batch_size,))
        u = udist.rsample((x.size(0),))
        assert len(z) == len(u) == len(x), (z.shape, u.shape, x.shape)
        if not first:
            first = [round(float(v), 5) for v in torch.cat([z, u], dim=1).sum(dim=1)]
        loss = D(x).mean() - D(G(z)).mean() - D(G(u)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
E2E_DIGEST = first
print("first codes", E2E_DIGEST)
