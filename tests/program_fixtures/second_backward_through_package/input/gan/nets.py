"""A GAN model class whose backward() runs two backwards through D's forwards."""
import torch
import torch.nn as nn


class GanModel(nn.Module):
    def __init__(self):
        super().__init__()
        generator = nn.DataParallel(nn.Linear(4, 4))
        discriminator = nn.DataParallel(nn.Linear(4, 1))
        self.add_module("generator", generator)
        self.add_module("discriminator", discriminator)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def process(self, x):
        self.optimizer.zero_grad()
        fake = self.generator(x)
        dis_loss = (1 - self.discriminator(x)).pow(2).mean()
        dis_loss = dis_loss + self.discriminator(fake.detach()).pow(2).mean()
        gen_loss = (1 - self.discriminator(fake)).pow(2).mean()
        return gen_loss, dis_loss

    def backward(self, gen_loss, dis_loss):
        dis_loss.backward()
        gen_loss.backward()
        self.optimizer.step()
