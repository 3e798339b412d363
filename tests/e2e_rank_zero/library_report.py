"""A model summary a library prints (elvisyjlin/AttGAN-PyTorch's `summary(self.G, ...)` in a
class's `__init__`, stop 39 v2-C): before the wrap, rank 1 printed it too. torchsummary is
the stand-in in stand_ins/: it runs the forward and prints one line."""

import torch
import torch.nn as nn
from torchsummary import summary


class GAN:
    def __init__(self):
        self.G = nn.Linear(4, 3)
        summary(self.G, [(4,)], batch_size=4, device="cpu")
        self.G = nn.DataParallel(self.G)
        self.opt = torch.optim.SGD(self.G.parameters(), lr=0.1)


torch.manual_seed(0)
gan = GAN()
for _ in range(2):
    loss = gan.G(torch.ones(4, 4)).pow(2).mean()
    gan.opt.zero_grad()
    loss.backward()
    gan.opt.step()
print("done")
