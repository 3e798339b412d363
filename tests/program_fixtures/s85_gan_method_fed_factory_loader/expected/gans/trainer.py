import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, WORLD_SIZE, ddp_draw_share


class PairGAN:
    def __init__(self, gen, dis, latent_size):
        self.gen = DistributedDataParallel(gen.to(DEVICE), device_ids=DEVICE_IDS)
        self.dis = DistributedDataParallel(dis.to(DEVICE), device_ids=DEVICE_IDS)
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
                noise = ddp_draw_share(
                    lambda: distrib(count * WORLD_SIZE, self.latent_size)
                )
                fake = self.gen(noise).detach()
                dis_loss = self.dis(fake).mean() - self.dis(images).mean()
                dis_optim.zero_grad()
                dis_loss.backward()
                dis_optim.step()
                noise = ddp_draw_share(
                    lambda: distrib(count * WORLD_SIZE, self.latent_size)
                )
                gen_loss = -self.dis(self.gen(noise)).mean()
                gen_optim.zero_grad()
                gen_loss.backward()
                gen_optim.step()
