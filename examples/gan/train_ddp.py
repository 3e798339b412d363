"""A small GAN learning a ring of 2-d Gaussians, in the layout of the PyTorch DCGAN tutorial.

Generator and discriminator are separate DataParallel models with their own Adam
optimizers, wrapped with the tutorial's `(device.type == 'cuda') and (ngpu > 1)` guard.
The latent noise is drawn inside the training loop, as every GAN does.
"""

import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    ddp_broadcast_module,
    ddp_draw_share,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


nz = 8  # size of the latent vector
ngf = 64  # generator width
ndf = 64  # discriminator width
batch_size = 64
num_epochs = 3
lr = 2e-3
beta1 = 0.5
ngpu = torch.cuda.device_count()


def ring_of_gaussians(num_points, modes=8, radius=2.0, std=0.05):
    angles = torch.randint(0, modes, (num_points,)).float() * (2 * math.pi / modes)
    centres = torch.stack([radius * torch.cos(angles), radius * torch.sin(angles)], dim=1)
    return centres + std * torch.randn(num_points, 2)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Linear(nz, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, 2),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Linear(2, ndf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, ndf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, 1),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight.data, 0.0, 0.1)
        nn.init.constant_(m.bias.data, 0)


torch.manual_seed(999)
device = DEVICE

with ddp_same_random():
    dataset = TensorDataset(ring_of_gaussians(2048))
dataloader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)

netG = Generator(ngpu).to(device)
netG = DistributedDataParallel(netG.to(DEVICE), device_ids=DEVICE_IDS)
netG.apply(weights_init)
ddp_broadcast_module(netG)

netD = Discriminator(ngpu).to(device)
netD = DistributedDataParallel(netD.to(DEVICE), device_ids=DEVICE_IDS)
netD.apply(weights_init)
ddp_broadcast_module(netD)

criterion = nn.BCELoss()
with ddp_same_random():
    fixed_noise = torch.randn(256, nz, device=device)
real_label = 1.0
fake_label = 0.0

optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

ddp_print("Starting Training Loop...")
for epoch in range(num_epochs):
    dataloader.sampler.set_epoch(epoch)
    for i, (real,) in enumerate(dataloader, 0):
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real_cpu = real.to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = ddp_draw_share(lambda: torch.randn(b_size * WORLD_SIZE, nz, device=device))
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()

        # (2) Update G network: maximize log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z = output.mean().item()
        optimizerG.step()

    ddp_print(
        "[%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f"
        % (epoch, num_epochs, errD.item(), errG.item(), D_x, D_G_z)
    )

with torch.no_grad():
    samples = netG(fixed_noise).cpu()
radius = samples.norm(dim=1).mean().item()
if ddp_is_main():
    print(f"mean radius of generated points {radius:.3f} (target 2.0)")
    print(f"final loss D {errD.item():.4f} G {errG.item():.4f}")
