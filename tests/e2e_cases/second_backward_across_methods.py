"""Stop 32, B2 across methods (knazeri/edge-connect@3142579's InpaintingModel):
process() makes D's forwards (real, fake.detach(), fake) and returns both losses,
backward() runs dis_loss.backward() then gen_loss.backward() before the steps. DP026 at
the loop's call: under DDP the second backward's part of D is not all-reduced, D ends
different per rank."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class GanModel(nn.Module):
    def __init__(self):
        super().__init__()
        generator = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4)))
        discriminator = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
        self.add_module("generator", generator)
        self.add_module("discriminator", discriminator)
        self.gen_optimizer = torch.optim.SGD(generator.parameters(), lr=0.05)
        self.dis_optimizer = torch.optim.SGD(discriminator.parameters(), lr=0.05)

    def process(self, x):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        fake = self.generator(x)
        dis_loss = (1 - self.discriminator(x)).pow(2).mean()
        dis_loss = dis_loss + self.discriminator(fake.detach()).pow(2).mean()
        gen_loss = (1 - self.discriminator(fake)).pow(2).mean() + (fake - x).abs().mean()
        return gen_loss, dis_loss

    def backward(self, gen_loss, dis_loss):
        dis_loss.backward()
        gen_loss.backward()
        self.dis_optimizer.step()
        self.gen_optimizer.step()


torch.manual_seed(0)
model = GanModel()
data = TensorDataset(torch.randn(32, 4, generator=torch.Generator().manual_seed(1)))
for _epoch in range(2):
    for (x,) in DataLoader(data, batch_size=8, shuffle=False):
        gen_loss, dis_loss = model.process(x)
        model.backward(gen_loss, dis_loss)
E2E_DIGEST = [
    float(sum(p.detach().sum() for p in net.parameters()))
    for net in (model.generator, model.discriminator)
]
