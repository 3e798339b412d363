"""WGAN-GP with the penalty as its own critic update (the shape of
heykeetae/Self-Attention-GAN@8714a54 trainer.py: d_loss.backward(); step; then the penalty's
forward, grad, backward, step). Migrated, the penalty's forward runs through D.module and
D's gradients are averaged after its backward: the run goes to its end with the ranks in
sync. Noise and interpolation weights come with the data (no draw in the loop), so `dp2ddp
verify` can compare the updates with the original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    generator = torch.Generator().manual_seed(0)
    real = torch.randn(64, 4, generator=generator) * 0.5 + 1.0
    noise = torch.randn(64, 4, generator=generator)
    alpha = torch.rand(64, 1, generator=generator)
    loader = DataLoader(TensorDataset(real, noise, alpha), batch_size=16, shuffle=True)
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    D = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    if torch.cuda.device_count() > 1:
        G = nn.DataParallel(G)
        D = nn.DataParallel(D)
    d_optimizer = torch.optim.SGD(D.parameters(), lr=0.05)
    g_optimizer = torch.optim.SGD(G.parameters(), lr=0.05)
    for epoch in range(2):
        for real_batch, noise_batch, alpha_batch in loader:
            fake = G(noise_batch).detach()
            d_loss = D(fake).mean() - D(real_batch).mean()
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()

            interpolated = alpha_batch * real_batch + (1 - alpha_batch) * fake
            interpolated.requires_grad_(True)
            out = D(interpolated)
            grad = torch.autograd.grad(
                outputs=out,
                inputs=interpolated,
                grad_outputs=torch.ones_like(out),
                retain_graph=True,
                create_graph=True,
            )[0]
            d_loss_gp = 10 * ((grad.norm(2, dim=1) - 1) ** 2).mean()
            d_optimizer.zero_grad()
            d_loss_gp.backward()
            d_optimizer.step()

            g_loss = -D(G(noise_batch)).mean()
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()
        print(f"epoch {epoch}: d_loss {d_loss.item():.4f} gp {d_loss_gp.item():.4f}")
    return [round(float(p.detach().sum()), 5) for p in D.parameters()]


E2E_DIGEST = main()
print("final", E2E_DIGEST)
