"""Instance noise added to each real sample, sized by this rank's batch
(`torch.randn(real.size(0), 8)`), and the generator's codes for the global batch, with one
seed for the whole program. Seeded alike, every rank would add the same noise to its own
samples. Migrated, the global batch's rows (the size times WORLD_SIZE) are drawn on rank 0's
stream and each rank keeps its contiguous part (ddp_draw_share): every sample gets its own
row of the original's draw. A strided sampler pairs rows and samples in another order than
DataParallel's scatter (the same rows, the same distribution); verify, whose alignment hands
each rank its contiguous part of the batch, finds the updates the original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
batch_size = 16
latent_dim = 4
images = TensorDataset(torch.randn(64, 8))
loader = DataLoader(images, batch_size=batch_size, shuffle=False)
G = nn.DataParallel(nn.Sequential(nn.Linear(latent_dim, 8), nn.Tanh()))
D = nn.DataParallel(nn.Linear(8, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
bce = nn.BCEWithLogitsLoss()
for epoch in range(2):
    for (real,) in loader:
        z = torch.randn(batch_size, latent_dim)
        real = real + 0.1 * torch.randn(real.size(0), 8)  # instance noise, per sample
        fake = G(z)
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        loss_d = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = bce(D(fake), ones)
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
    print(f"epoch {epoch}: D {loss_d.item():.4f} G {loss_g.item():.4f}")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in [*G.parameters(), *D.parameters()]]
print("final", E2E_DIGEST)
