import torch
import torch.nn as nn


class PairGAN:
    def __init__(self, gen, dis, latent_size):
        self.gen = nn.DataParallel(gen)
        self.dis = nn.DataParallel(dis)
        self.latent_size = latent_size

    def train(self, data, gen_optim, dis_optim, epochs, latent_distrib="gaussian"):
        if latent_distrib == "gaussian":
            distrib = torch.randn
        else:
            distrib = torch.rand
        for _ in range(epochs):
            for i, (batch,) in enumerate(data, 1):
                images = batch
                count = images.shape[0]
                noise = distrib(count, self.latent_size)
                fake = self.gen(noise).detach()
                dis_loss = self.dis(fake).mean() - self.dis(images).mean()
                dis_optim.zero_grad()
                dis_loss.backward()
                dis_optim.step()
                noise = distrib(count, self.latent_size)
                gen_loss = -self.dis(self.gen(noise)).mean()
                gen_optim.zero_grad()
                gen_loss.backward()
                gen_optim.step()
