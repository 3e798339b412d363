"""Helpers of the program (ajbrock/BigGAN-PyTorch's utils.toggle_grad): switches a network's
gradients on or off between a critic's and a generator's steps. The combined module is
wrapped in train.py: the toggle runs after the wrap, so the wrapped parameters it switches off
get no gradient in those steps. DP041 at the wrap names this line; a freeze in a constructor
(Frozen) is not such a toggle."""
import torch.nn as nn


def toggle_grad(net, on):
    for p in net.parameters():
        p.requires_grad = on


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.embed.weight.requires_grad_(False)

    def forward(self, x):
        return self.embed(x)
