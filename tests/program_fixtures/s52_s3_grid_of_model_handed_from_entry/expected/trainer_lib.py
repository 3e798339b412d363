# The sample grids of Cold-Diffusion's Trainer (arpitbansal297/Cold-Diffusion-Models@f8b1379
# resolution_diffusion_pytorch.py ~950-990), the Trainer in a module of its own, handed the
# model by the entry (celebA_128.py:28-43: `diffusion` bound to the model, then to its
# DataParallel wrap, then `Trainer(diffusion, ...)`). The method's outputs are the wrapped
# model's: gathered (stop 51 w6 left DP132 there, rank 0 saving 4 rows of 8).
import copy

import torch
from torch import nn
from torch.utils import data
from torchvision import utils

from _dp2ddp import (
    DdpDistributedSampler,
    ddp_gather_rows,
    ddp_is_main,
    ddp_per_rank_batch,
)

device = torch.device("cpu")


def cycle(dl):
    while True:
        for batch in dl:
            yield batch


class Blur(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        return (self.conv(x) - x).abs().mean()

    def sample(self, batch_size=4, img=None):
        out = self.conv(img)
        return out - img, out


class Trainer:
    def __init__(self, model, ds, batch_size=8, steps=4, every=2):
        self.model = model
        self.ema_model = copy.deepcopy(self.model)
        self.batch_size = batch_size
        self.steps = steps
        self.every = every
        self.dl = cycle(
            data.DataLoader(
                ds,
                batch_size=ddp_per_rank_batch(batch_size),
                sampler=DdpDistributedSampler(ds, shuffle=False),
            ),
        )
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.step = 0

    def train(self):
        while self.step < self.steps:
            for i in range(2):
                batch = next(self.dl).to(device)
                loss = self.model(batch).mean()
                loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            if self.step != 0 and self.step % self.every == 0:
                og_img = next(self.dl).to(device)
                xt, recons = self.ema_model.module.sample(batch_size=self.batch_size, img=og_img)
                og_img = (ddp_gather_rows(og_img) + 1) * 0.5
                if ddp_is_main():
                    utils.save_image(og_img, "og-%d.png" % self.step, nrow=4)
                recons = (ddp_gather_rows(recons) + 1) * 0.5
                if ddp_is_main():
                    utils.save_image(recons, "recons-%d.png" % self.step, nrow=4)
                    print(
                        "grid %d og %d rows %d sum %.3f" % (
                            self.step,
                            og_img.shape[0],
                            recons.shape[0],
                            recons.sum().item(),
                        ),
                    )
            self.step += 1


