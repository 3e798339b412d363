"""A GAN model class (edge-connect's InpaintingModel shape) and a critic helper."""
import torch
import torch.nn as nn


class GanModel(nn.Module):
    def __init__(self):
        super().__init__()
        generator = nn.DataParallel(nn.Linear(4, 4))
        discriminator = nn.DataParallel(nn.Linear(4, 1))
        self.add_module("generator", generator)
        self.add_module("discriminator", discriminator)
        self.gen_optimizer = torch.optim.SGD(generator.parameters(), lr=0.05)
        self.dis_optimizer = torch.optim.SGD(discriminator.parameters(), lr=0.05)

    def process(self, x):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        fake = self.generator(x)
        dis_real = self.discriminator(x)
        dis_fake = self.discriminator(fake.detach())
        dis_loss = (1 - dis_real).pow(2).mean() + dis_fake.pow(2).mean()
        gen_fake = self.discriminator(fake)
        gen_loss = (1 - gen_fake).pow(2).mean() + (fake - x).abs().mean()
        return gen_loss, dis_loss

    def backward(self, gen_loss, dis_loss):
        dis_loss.backward()
        gen_loss.backward()
        self.dis_optimizer.step()
        self.gen_optimizer.step()


def critic_losses(critic, x):
    return critic(x).mean(), critic(x * 0.5).mean()
