"""G and D in one module whose forward returns both losses, and two backward passes
through that one forward (NVIDIA/pix2pixHD@14b3b3c train.py). DP026: under DDP the
second backward (D's) is not all-reduced, so D ends different on each rank."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = nn.Linear(8, 8)
        self.netD = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, label, image):
        fake = self.netG(label)
        loss_D = (self.netD(fake.detach()).mean() - self.netD(image).mean()) * 0.5
        loss_G = -self.netD(fake).mean() + 10 * (fake - image).abs().mean()
        return loss_G, loss_D


torch.manual_seed(0)
model = nn.DataParallel(Pair())
optimizer_G = torch.optim.SGD(model.module.netG.parameters(), lr=0.05)
optimizer_D = torch.optim.SGD(model.module.netD.parameters(), lr=0.05)
generator = torch.Generator().manual_seed(1)
data = TensorDataset(
    torch.randn(64, 8, generator=generator), torch.randn(64, 8, generator=generator)
)
loader = DataLoader(data, batch_size=16, shuffle=False)
for epoch in range(2):
    for label, image in loader:
        loss_G, loss_D = model(label, image)
        optimizer_G.zero_grad()
        loss_G.backward()
        optimizer_G.step()
        optimizer_D.zero_grad()
        loss_D.backward()
        optimizer_D.step()
    print(f"epoch {epoch} loss_G {loss_G.item():.4f} loss_D {loss_D.item():.4f}")
E2E_DIGEST = [
    float(sum(p.detach().sum() for p in net.parameters()))
    for net in (model.module.netG, model.module.netD)
]
