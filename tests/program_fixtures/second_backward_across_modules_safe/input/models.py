"""A GAN whose updates each make their own forward of D, and a one-forward step helper."""
import torch
import torch.nn as nn


class GanModel:
    def __init__(self):
        self.generator = nn.DataParallel(nn.Linear(4, 4))
        self.discriminator = nn.DataParallel(nn.Linear(4, 1))
        self.gen_optimizer = torch.optim.SGD(self.generator.parameters(), lr=0.05)
        self.dis_optimizer = torch.optim.SGD(self.discriminator.parameters(), lr=0.05)

    def process(self, x):
        fake = self.generator(x)
        return (fake - x).abs().mean(), fake

    def update_d(self, x, fake):
        self.dis_optimizer.zero_grad()
        dis_loss = (1 - self.discriminator(x)).pow(2).mean()
        dis_loss = dis_loss + self.discriminator(fake.detach()).pow(2).mean()
        dis_loss.backward()
        self.dis_optimizer.step()

    def update_g(self, fake, l1_loss):
        self.gen_optimizer.zero_grad()
        gen_loss = (1 - self.discriminator(fake)).pow(2).mean() + l1_loss
        gen_loss.backward()
        self.gen_optimizer.step()


def step(model, optimizer, x):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()
