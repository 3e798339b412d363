"""second_backward.py after a migration, fixed by hand as DP026's first way out says: the
one forward under `model.no_sync()`, and after each backward the gradients of the part its
optimizer steps all-reduced and divided by the world size. Run as it is (not migrated)."""

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


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


def all_reduce_gradients(module):
    for parameter in module.parameters():
        if parameter.grad is not None:
            dist.all_reduce(parameter.grad)
            parameter.grad /= dist.get_world_size()


if not dist.is_initialized():
    dist.init_process_group("gloo")
torch.manual_seed(0)
model = DistributedDataParallel(Pair())
optimizer_G = torch.optim.SGD(model.module.netG.parameters(), lr=0.05)
optimizer_D = torch.optim.SGD(model.module.netD.parameters(), lr=0.05)
generator = torch.Generator().manual_seed(1)
data = TensorDataset(
    torch.randn(64, 8, generator=generator), torch.randn(64, 8, generator=generator)
)
loader = DataLoader(
    data, batch_size=16 // dist.get_world_size(), sampler=DistributedSampler(data, shuffle=False)
)
for _epoch in range(2):
    for label, image in loader:
        with model.no_sync():
            loss_G, loss_D = model(label, image)
        optimizer_G.zero_grad()
        loss_G.backward()
        all_reduce_gradients(model.module.netG)
        optimizer_G.step()
        optimizer_D.zero_grad()
        loss_D.backward()
        all_reduce_gradients(model.module.netD)
        optimizer_D.step()
E2E_DIGEST = [
    float(sum(p.detach().sum() for p in net.parameters()))
    for net in (model.module.netG, model.module.netD)
]
