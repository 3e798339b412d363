"""Round 23 (issue 28, Andrewzh112/codebase@45892e2 vae/): a VAE criterion of another module
of the package returns `(rec + kl, rec, kl)`, its KL a sum over the batch; the script unpacks
the tuple, adds a penalty to the loss under a flag and backpropagates it (before: nothing
said but DP121 on the reconstruction's reduction value); a loss function of that module
returning such a tuple, its first element picked by `out[0]`. Both sums are in a module the
program imports (other callers may read it): DP004 at each loss."""

import torch
import torch.nn as nn

from vae.loss import VAELoss, loss_function

LATENT_PENALTY = True


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 6)
        self.dec = nn.Linear(3, 6)

    def forward(self, x):
        h = self.enc(x).view(-1, 2, 3)
        mu, logvar = h[:, 0], h[:, 1]
        return self.dec(mu), mu, logvar


def main():
    torch.manual_seed(0)
    data = torch.randn(32, 6)
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=False)
    model = nn.DataParallel(VAE())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = VAELoss(0.1)
    for x in loader:
        x_hat, mu, logvar = model(x)
        loss, rec, kl = criterion(x, x_hat, mu, logvar)
        if LATENT_PENALTY:
            loss += 0.1 * mu.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for x in loader:
        x_hat, mu, logvar = model(x)
        out = loss_function(x_hat, x, mu, logvar)
        loss = out[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
    m = model.module
    print("encode %.5f" % m.enc.weight.abs().sum().item())
    print("decode %.5f" % m.dec.weight.abs().sum().item())


if __name__ == "__main__":
    main()
