"""Noise shaped like the batch with one seed for every rank (the class of
ermongroup/ncsn@7f27f4a): dequantisation noise `torch.rand_like(X)`, noise levels
`torch.randint(..., (X.shape[0],))` and a loss helper drawing `torch.randn_like(samples)`.
Seeded alike, rank 1 would draw rank 0's rows for other samples. Migrated, each is drawn
for the global batch on rank 0's stream and each rank keeps its rows: E2E_DIGEST is the
first step's draws, row by row, so rank 0's and rank 1's differ and together are the
original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
sigmas = torch.tensor([1.0, 0.5, 0.25])
drawn = []


def dsm_loss(scorenet, samples, labels, sigmas):
    used = sigmas[labels].view(samples.shape[0], 1)
    noise = torch.randn_like(samples)
    drawn.append(noise)
    perturbed = samples + noise * used
    target = -(perturbed - samples) / used**2
    return ((scorenet(perturbed) - target) ** 2).sum(dim=-1).mean()


model = nn.DataParallel(nn.Linear(6, 6))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.rand(32, 6), torch.zeros(32)), batch_size=8)
for epoch in range(2):
    for X, _ in loader:
        dequant = torch.rand_like(X)
        X = X / 256.0 * 255.0 + dequant / 256.0
        labels = torch.randint(0, len(sigmas), (X.shape[0],), device=X.device)
        drawn += [dequant, labels.float()[:, None]]
        loss = dsm_loss(model, X, labels, sigmas)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
dequant, labels, noise = drawn[:3]
E2E_DIGEST = [round(v, 5) for v in torch.cat([dequant, labels, noise], dim=1).flatten().tolist()]
print("first draws", E2E_DIGEST[:4])
