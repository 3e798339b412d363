"""Fresh round stop 30, class U3 (ajbrock/BigGAN-PyTorch@9845943's G_D): a generator and its
critic in one wrapped module, the generator run under `torch.set_grad_enabled(train_g)`; the
loop alternates a critic step (the generator without gradient) and a generator step. DDP
failed at step 2 ("Expected to have finished reduction in the prior iteration"), with no
warning. Now DP041 and find_unused_parameters=True: to the end, the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class GD(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Linear(4, 6)
        self.d = nn.Linear(6, 1)

    def forward(self, z, x, train_g=False):
        with torch.set_grad_enabled(train_g):
            fake = self.g(z)
        return self.d(fake), self.d(x)


torch.manual_seed(0)
gd = GD()
opt_g = torch.optim.SGD(gd.g.parameters(), lr=0.1)
opt_d = torch.optim.SGD(gd.d.parameters(), lr=0.1)
model = nn.DataParallel(gd)
loader = DataLoader(TensorDataset(torch.randn(16, 6)), batch_size=4)
for (x,) in loader:
    z = torch.randn(x.size(0), 4)
    d_fake, d_real = model(z, x)
    opt_d.zero_grad()
    (d_fake.mean() - d_real.mean()).backward()
    opt_d.step()
    d_fake, _ = model(z, x, train_g=True)
    opt_g.zero_grad()
    (-d_fake.mean()).backward()
    opt_g.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in gd.parameters()]
print("final", E2E_DIGEST)
