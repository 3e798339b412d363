"""Noise for the batch drawn in a loop over a loader the function is handed (class v1-A of
stop 40, locuslab/smoothing@78a4d94: `def train(loader, ...)`, `inputs + torch.randn_like(
inputs) * noise_sd`, called with the training loader), with torch's one default seed on every
rank. Before: DP006, both ranks drew the same noise for their own samples. Migrated, the draw
takes the global batch's rows on rank 0's stream and each rank keeps its own: E2E_DIGEST is the
first step's noise, row by row, so rank 0's and rank 1's differ and together are the
original's one draw."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

drawn = []


def train(loader, model, optimizer, noise_sd):
    for inputs, targets in loader:
        noisy = inputs + torch.randn_like(inputs) * noise_sd
        drawn.append((noisy - inputs) / noise_sd)
        loss = ((model(noisy) - targets) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(6, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.rand(16, 6), torch.rand(16, 2)), batch_size=8)
for _epoch in range(2):
    train(loader, model, optimizer, 0.5)
E2E_DIGEST = [round(v, 5) for v in drawn[0].flatten().tolist()]
print("first draws", E2E_DIGEST[:4])
